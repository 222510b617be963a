package browsertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// longRun is the generated run: three hours, 5,000 tool calls.
const (
	longCalls    = 5000
	longDuration = 3 * time.Hour
)

// writeLongLog writes the session log of a three-hour cursor-agent run with
// 5,000 tool calls of five kinds (some of them long and overlapping), its
// usage every 50 calls, a
// silence the model connection excused, one the agent's busy processes
// excused, a warning, a three-minute stop (Ctrl-Z), and at the end a call past its deadline: a hang, its
// kills and the exit.
func writeLongLog(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	rec := func(at time.Duration, level, msg string, fields map[string]any) {
		fields["time"], fields["level"], fields["msg"] = start.Add(at), level, msg
		b, err := json.Marshal(fields)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(append(b, '\n'))
	}
	event := func(at time.Duration, line map[string]any) {
		raw, _ := json.Marshal(line)
		fields := map[string]any{"recv_ts": start.Add(at).UnixMilli(), "raw": string(raw), "type": line["type"]}
		if st, ok := line["subtype"]; ok {
			fields["subtype"] = st
		}
		if id, ok := line["call_id"]; ok {
			fields["call_id"] = id
		}
		rec(at, "DEBUG", "event", fields)
	}
	call := func(kind, id, command string, timeoutMS int) map[string]any {
		args := map[string]any{"command": command, "path": command}
		if timeoutMS > 0 {
			args["timeout"] = timeoutMS
		}
		return map[string]any{kind: map[string]any{"args": args}}
	}
	rec(0, "INFO", "command", map[string]any{"attempt": 1, "agent": "cursor", "path": "/usr/bin/cursor-agent",
		"argv": []string{"-p", "--output-format", "stream-json", "refactor the ledger"}, "env": []string{}, "watch": "events"})
	rec(time.Millisecond, "INFO", "start", map[string]any{"pid": 4242, "dir": "/w", "tick_ms": 5000, "activity_probe": true})
	event(300*time.Millisecond, map[string]any{"type": "system", "subtype": "init", "session_id": "long-0001", "model": "Auto", "cwd": "/w"})

	kinds := []string{"shellToolCall", "readToolCall", "editToolCall", "grepToolCall", "lsToolCall"}
	rnd := rand.New(rand.NewPCG(27, 4))
	step := (longDuration - 10*time.Minute) / longCalls
	type end struct {
		at   time.Duration
		id   string
		kind string
	}
	var pending []end
	flush := func(before time.Duration) {
		kept := pending[:0]
		for _, e := range pending {
			if e.at <= before {
				event(e.at, map[string]any{"type": "tool_call", "subtype": "completed", "call_id": e.id, "tool_call": call(e.kind, e.id, "", 0)})
			} else {
				kept = append(kept, e)
			}
		}
		pending = kept
	}
	at := time.Second
	for i := range longCalls - 1 {
		switch i {
		case 1000: // The model thinks for five minutes, streaming its answer in.
			flush(at)
			rec(at+4*time.Minute, "INFO", "evidence", map[string]any{"connection": "104.18.0.1:443", "received_ms_ago": 200, "idle_silence_ms": 240000})
			at += 5 * time.Minute
		case 2500: // A build with no tool call open: the process tree is busy.
			flush(at)
			rec(at+90*time.Second, "INFO", "verdict", map[string]any{"from": "ok", "to": "warn", "reason": map[string]any{
				"kind": "idle", "idle_silence_ms": 90000, "elapsed_ms": at.Milliseconds(), "open_call_count": 0, "last_event_type": "tool_call/completed",
				"open_calls": []any{}, "activity": map[string]any{"windows": 45, "active_windows": 40, "last_cpu_percent": 180.0, "last_read_bytes_per_sec": 0, "extended_ms": 30000}}})
			rec(at+90*time.Second, "WARN", "warning", map[string]any{"message": "hang imminent", "in_ms": 30000})
			at += 2 * time.Minute
		case 4000: // The user stops the job with Ctrl-Z for three minutes.
			flush(at)
			rec(at, "INFO", "kill", map[string]any{"signal": "SIGSTOP", "pids": []int{-4242}})
			rec(at+3*time.Minute, "INFO", "kill", map[string]any{"signal": "SIGCONT", "pids": []int{-4242}})
			at += 3*time.Minute + time.Second
		}
		kind := kinds[rnd.IntN(len(kinds))]
		id := fmt.Sprintf("c%d", i)
		took := time.Duration(200+rnd.IntN(1500)) * time.Millisecond
		if i%250 == 0 {
			took = time.Duration(2+rnd.IntN(6)) * time.Minute
		}
		flush(at)
		event(at, map[string]any{"type": "tool_call", "subtype": "started", "call_id": id, "tool_call": call(kind, id, fmt.Sprintf("step %d of the refactor", i), 600000)})
		pending = append(pending, end{at + took, id, kind})
		if i%50 == 49 { // Claude-like: the running total after each turn.
			n := int64(i + 1)
			rec(at+time.Millisecond, "INFO", "usage", map[string]any{"input_tokens": 300 * n, "output_tokens": 80 * n,
				"cache_read_tokens": 9000 * n, "cache_write_tokens": 0, "cost_usd": 0.004 * float64(n)})
		}
		at += step
	}
	flush(longDuration)
	// The last call declares a minute and never ends.
	last := at + time.Minute
	event(at, map[string]any{"type": "tool_call", "subtype": "started", "call_id": "last", "tool_call": call("shellToolCall", "last", "make integration", 60000)})
	hang := map[string]any{"kind": "tool", "idle_silence_ms": 200000, "elapsed_ms": (last + 2*time.Minute).Milliseconds(), "open_call_count": 1, "last_event_type": "tool_call/started",
		"open_calls": []any{map[string]any{"call_id": "last", "kind": "shellToolCall", "command": "make integration", "elapsed_ms": 180000, "timeout_ms": 60000, "budget_ms": 60000}}}
	done := last + 2*time.Minute
	rec(done, "ERROR", "hang_detected", map[string]any{"reason": hang})
	rec(done+time.Millisecond, "INFO", "kill", map[string]any{"signal": "SIGTERM", "pids": []int{-4242}})
	rec(done+50*time.Millisecond, "INFO", "agent_exited", map[string]any{"code": -1, "signal": "SIGTERM"})
	rec(done+60*time.Millisecond, "INFO", "exit", map[string]any{"cause": "hung", "status": 124, "duration_ms": (done + 60*time.Millisecond).Milliseconds(),
		"lines": 2 * longCalls, "tool_calls": longCalls, "longest_silence_ms": 300000})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}
