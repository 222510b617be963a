package ptyproxy

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// readSlowly is a stderr read at a steady rate: each write takes as long
// as its bytes need at rate bytes a second.
type readSlowly struct {
	mu   sync.Mutex
	b    bytes.Buffer
	rate int
}

func (r *readSlowly) Write(p []byte) (int, error) {
	time.Sleep(time.Duration(len(p)) * time.Second / time.Duration(r.rate))
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.Write(p)
}

// keptLog is a session log kept whole, for its records' fields.
type keptLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (r *keptLog) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.Write(p)
}

// find returns the records of msg, decoded.
func (r *keptLog) find(msg string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var found []map[string]any
	for line := range bytes.Lines(r.b.Bytes()) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["msg"] == msg {
			found = append(found, m)
		}
	}
	return found
}

// TestStderrSlowReader: an agent writes 300 KB to stderr, more than the
// pipe and the copy hold, and exits, while the wrapper's stderr is read at
// 200 KB/s. All of it is passed on, its last line too, however long that
// takes past the old one-second bound, and nothing is said to be dropped.
func TestStderrSlowReader(t *testing.T) {
	t.Parallel()
	errs, log := &readSlowly{rate: 200 << 10}, &keptLog{}
	res, _ := runAgent(t, Options{IO: IO{Stderr: errs}, Log: sessionlog.NewRecorder(nil, sessionlog.SinkTo(log))},
		"errflood", "300000", "err", "FATAL: the end", "exit", "3")
	errs.mu.Lock()
	got := errs.b.Len()
	last := bytes.HasSuffix(errs.b.Bytes(), []byte("\nFATAL: the end\n"))
	errs.mu.Unlock()
	if got != 300000+len("FATAL: the end\n") || !last || res.ExitCode != 3 {
		t.Errorf("stderr got %d bytes (its last line: %v), exit %d; want 300,015 bytes, FATAL last, exit 3", got, last, res.ExitCode)
	}
	if dropped := log.find("stderr_dropped"); len(dropped) != 0 {
		t.Errorf("records of bytes dropped: %v", dropped)
	}
}

// TestStderrTakesNothing: the agent writes 60,000 bytes to stderr and
// exits, and the wrapper's stderr takes the first 8 KiB, then nothing.
// Once it has taken nothing for Stall, the copy is given up on, a
// stderr_dropped record counts every byte not delivered, and the agent's
// exit status stands. On the fake clock the test does not wait the 10 s.
func TestStderrTakesNothing(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := newFakeClock(start)
	errs := &stuckWriter{take: 8 << 10, release: make(chan struct{}), stuck: make(chan struct{})}
	defer close(errs.release)
	th := fast()
	th.IdleTimeout, th.MaxSilence = 30*time.Minute, time.Hour
	log := &keptLog{}
	// 60,000 bytes: more than stderr takes, and little enough for the
	// pipe to hold the rest whatever the copy holds, so that the agent can
	// exit.
	o := Options{Path: self, Args: []string{fakeagent.Subcommand, "errflood", "60000", "exit", "0"}, Env: agentEnv(),
		IO: IO{Stderr: errs}, Parse: stream.Parse, Thresholds: th, Tick: time.Hour, KillGrace: time.Second,
		Log: sessionlog.NewRecorder(nil, sessionlog.SinkTo(log))}
	res := runStuck(t, o, clock, errs.stuck, start.Add(time.Minute))
	if res.Cause != Exited || res.ExitCode != 0 || res.Ended.Sub(start) < Stall {
		t.Errorf("outcome %+v, ended %v after the start; want the agent's exit 0 after %v", res, res.Ended.Sub(start), Stall)
	}
	dropped := log.find("stderr_dropped")
	errs.mu.Lock()
	took := errs.took
	errs.mu.Unlock()
	if len(dropped) != 1 || dropped[0]["bytes"] != float64(60000-took) {
		t.Errorf("stderr took %d bytes; records of bytes dropped %v, want one of %d", took, dropped, 60000-took)
	}
}
