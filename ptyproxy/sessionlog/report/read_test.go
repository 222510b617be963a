package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/watchdog"
)

// t0 is when the test logs start.
var t0 = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// logOf builds a session log as the wrapper writes it: one record a line,
// each in the shape of its sessionlog type, at t0 plus a second a record.
type logOf struct {
	b   bytes.Buffer
	at  time.Time
	msg string
}

func newLog(agent, run string, attempt int) *logOf {
	l := &logOf{at: t0}
	l.add("command", sessionlog.Command{Attempt: attempt, Run: run, Agent: agent, Path: "/usr/bin/" + agent,
		Argv: []string{"-p", "fix the tests"}, Env: []string{"HOME=/home/u"}, Watch: "events"})
	l.add("start", sessionlog.Start{Pid: 42, TickMS: 5000})
	return l
}

func (l *logOf) add(msg string, rec any) *logOf {
	body, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(&l.b, `{"time":%q,"level":"INFO","msg":%q`, l.at.Format(time.RFC3339Nano), msg)
	if len(body) > 2 {
		l.b.WriteByte(',')
		l.b.Write(body[1:])
	} else {
		l.b.WriteByte('}')
	}
	l.b.WriteByte('\n')
	l.at = l.at.Add(time.Second)
	return l
}

// events adds n bytes or so of event records, a real capture's line each.
func (l *logOf) events(n int) *logOf {
	line := []byte(`{"type":"assistant","message":{"id":"msg_01","content":[{"type":"text","text":"Reading the tests first."}],"usage":{"input_tokens":3,"output_tokens":12}}}`)
	for start := l.b.Len(); l.b.Len()-start < n; {
		l.b.Write(sessionlog.AppendEvent(nil, sessionlog.Event{Time: l.at, RecvTS: l.at.UnixMilli(), Type: "assistant", Raw: line}))
	}
	return l
}

func (l *logOf) exit(cause string, status int, usage string) *logOf {
	body, _ := json.Marshal(sessionlog.Exit{Cause: cause, Status: status, DurationMS: 4000})
	if usage != "" {
		body = append(body[:len(body)-1], `,"usage":`+usage+`}`...)
	}
	fmt.Fprintf(&l.b, `{"time":%q,"level":"INFO","msg":"exit",%s`+"\n", l.at.Format(time.RFC3339Nano), body[1:])
	return l
}

func (l *logOf) bytes() []byte { return l.b.Bytes() }

func readBytes(t *testing.T, b []byte) Attempt {
	t.Helper()
	a, err := read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return a
}

func TestReadAnswered(t *testing.T) {
	t.Parallel()
	l := newLog("claude", "r1", 1).events(100<<10).add("usage", sessionlog.UsageRecord{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 300})
	a := readBytes(t, l.exit("exited", 0, `{"input_tokens":1200,"output_tokens":340,"cache_read_tokens":9000,"cache_write_tokens":0,"cost_usd":0.0123}`).bytes())
	if a.Agent != "claude" || a.Run != "r1" || a.Number != 1 || !a.Start.Equal(t0) || a.Exit == nil || a.Exit.Cause != "exited" {
		t.Fatalf("attempt %+v", a)
	}
	if u := a.Usage; u == nil || u.Input != 1200 || u.Output != 340 || u.CacheRead != 9000 || !u.HasCost || u.CostUSD != 0.0123 {
		t.Errorf("usage %+v: want the exit record's, not the last usage record's", u)
	}
	if want := t0.Add(3 * time.Second); !a.End.Equal(want) {
		t.Errorf("end %v, want the exit record's time %v", a.End, want)
	}
}

// A log whose exit record has no usage (a wrapper killed after its last
// usage record, or an agent that reports nothing) is read as its last
// usage record says, or as not reported: never 0.
func TestReadUsageFallbacks(t *testing.T) {
	t.Parallel()
	l := newLog("codex", "", 1).add("usage", sessionlog.UsageRecord{InputTokens: 1, OutputTokens: 2}).add("usage", sessionlog.UsageRecord{InputTokens: 5, OutputTokens: 7})
	if u := readBytes(t, l.bytes()).Usage; u == nil || u.Input != 5 || u.Output != 7 || u.HasCost {
		t.Errorf("no exit record: usage %+v, want the last usage record's", u)
	}
	if a := readBytes(t, newLog("gemini", "", 1).exit("exited", 0, "").bytes()); a.Usage != nil {
		t.Errorf("no usage reported: %+v, want nil", a.Usage)
	}
}

// The hang and agent error records come before the kill, the agent's last
// words and the on_hang command: when those push them out of the tail, the
// whole log is scanned for them.
func TestReadKindsBeforeTheTail(t *testing.T) {
	t.Parallel()
	hung := newLog("cursor", "", 1).events(4<<10).add(sessionlog.MsgHangDetected, sessionlog.HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindTool}}).
		events(2*tailSize).exit("hung", 124, "")
	if a := readBytes(t, hung.bytes()); a.HangKind != watchdog.KindTool {
		t.Errorf("hang kind %q, want %q", a.HangKind, watchdog.KindTool)
	}
	budget := newLog("claude", "", 1).add(sessionlog.MsgHangDetected, sessionlog.HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindBudget, Budget: watchdog.BudgetCost}}).
		events(2*tailSize).exit("over_budget", 86, "")
	if a := readBytes(t, budget.bytes()); a.Budget != watchdog.BudgetCost {
		t.Errorf("budget %q, want %q", a.Budget, watchdog.BudgetCost)
	}
	failed := newLog("claude", "", 1).add("agent_error", sessionlog.AgentErrorRecord{Kind: "rate_limit", Source: "stdout"}).
		events(2*tailSize).exit("exited", 80, "")
	if a := readBytes(t, failed.bytes()); a.AgentError != "rate_limit" {
		t.Errorf("agent error %q, want rate_limit", a.AgentError)
	}
	started := newLog("opencode", "", 1).add(sessionlog.MsgStartFailed, sessionlog.StartFailed{Error: "exec format error"})
	if a := readBytes(t, started.bytes()); !a.StartFailed || a.Exit != nil {
		t.Errorf("start failed: %+v", a)
	}
}

// A log cut short is read as far as it goes: a torn last record never was.
// One that is no session log, or whose records a report needs do not read,
// is ErrNotALog.
func TestReadDamaged(t *testing.T) {
	t.Parallel()
	whole := newLog("claude", "", 1).events(1<<10).exit("exited", 0, `{"input_tokens":1,"output_tokens":2}`).bytes()
	torn := whole[:len(whole)-10]
	if a := readBytes(t, torn); a.Exit != nil || a.Agent != "claude" {
		t.Errorf("torn exit record: %+v, want an attempt with no exit", a)
	}
	bad := map[string][]byte{
		"empty":            nil,
		"not json":         []byte("hello\n"),
		"cut in the head":  whole[:40],
		"no command first": []byte(`{"time":"2026-11-20T09:30:00Z","level":"INFO","msg":"start","pid":1}` + "\n"),
		"exit not json":    append(newLog("claude", "", 1).bytes(), `{"time":"x","level":"INFO","msg":"exit","status":"zero"}`+"\n"...),
		"crafted exit":     append(newLog("claude", "", 1).bytes(), `{"time":"2026-11-20T09:30:00Z","level":"INFO","msg":"exit","duration_ms":[1]}`+"\n"...),
	}
	for name, b := range bad {
		if _, err := read(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrNotALog) {
			t.Errorf("%s: err %v, want ErrNotALog", name, err)
		}
	}
}

func TestReadAllCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := []string{
		write("cursor-wrap-1.jsonl", newLog("claude", "", 1).exit("exited", 0, "").bytes()),
		write("cursor-wrap-2.jsonl", []byte("garbage\n")),
		write("cursor-wrap-3.jsonl", newLog("codex", "", 1).bytes()), // unfinished: its wrapper was killed
		filepath.Join(dir, "cursor-wrap-4.jsonl"),                    // pruned since the listing
	}
	attempts, skipped, running := ReadAll(paths)
	if len(attempts) != 2 || skipped != 2 || running != 0 {
		t.Errorf("read %d, skipped %d, running %d; want 2, 2, 0", len(attempts), skipped, running)
	}
}

// FuzzRead: whatever a log holds, reading it neither panics nor takes
// more than it is told it has.
func FuzzRead(f *testing.F) {
	f.Add(newLog("claude", "r", 2).events(1<<10).exit("exited", 0, `{"input_tokens":1,"output_tokens":2,"cost_usd":1}`).bytes())
	f.Add(newLog("cursor", "", 1).add(sessionlog.MsgHangDetected, sessionlog.HangDetected{}).exit("hung", 124, "").bytes())
	f.Add(newLog("codex", "", 1).add("usage", sessionlog.UsageRecord{InputTokens: 3}).bytes())
	f.Add([]byte(`{"time":"2026-11-20T09:30:00Z","level":"INFO","msg":"command"}` + "\n" + `{"time":"x","level":"INFO","msg":"exit"`))
	f.Add([]byte(strings.Repeat("\n", 10)))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := read(bytes.NewReader(b), int64(len(b)))
		if err == nil && a.Exit == nil && a.End != (time.Time{}) {
			t.Errorf("an end without an exit record: %+v", a)
		}
	})
}
