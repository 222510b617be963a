//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// logTimes reads when the wrapper declared a hang and when the agent was
// gone from a session log, whose records carry "msg" and an RFC 3339 "time"
// with nanoseconds:
//
//	hang_late_ms  hang_detected - (last event + idle): lateness past the threshold
//	kill_ms       agent_exited - hang_detected: SIGTERM to the agent reaped
//	done_ms       exit - hang_detected: the wrapper's last record
//
// The last event's record is written a few µs after the read that brought
// it, which is when the wrapper's silence starts, so hang_late_ms is at
// worst a few µs short.
func logTimes(args []string) int {
	fs := flag.NewFlagSet("logtimes", flag.ContinueOnError)
	idle := fs.Duration("idle", 0, "the --idle-timeout the wrapper ran with")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *idle <= 0 {
		return fatal("logtimes: want -idle D LOGFILE")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return fatal("logtimes: %v", err)
	}
	defer f.Close()
	var lastEvent, hang, exited, done time.Time
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			Time time.Time `json:"time"`
			Msg  string    `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		switch {
		case rec.Msg == "event" && hang.IsZero():
			lastEvent = rec.Time
		case rec.Msg == "hang_detected" && hang.IsZero():
			hang = rec.Time
		case rec.Msg == "agent_exited" && !hang.IsZero() && exited.IsZero():
			exited = rec.Time
		case rec.Msg == "exit":
			done = rec.Time
		}
	}
	if err := sc.Err(); err != nil {
		return fatal("logtimes: %v", err)
	}
	if lastEvent.IsZero() || hang.IsZero() || exited.IsZero() {
		return fatal("logtimes: %s: no event, hang_detected and agent_exited records", fs.Arg(0))
	}
	fmt.Printf("hang_late_ms=%s kill_ms=%s done_ms=%s\n",
		ms(hang.Sub(lastEvent.Add(*idle))), ms(exited.Sub(hang)), ms(done.Sub(hang)))
	return 0
}
