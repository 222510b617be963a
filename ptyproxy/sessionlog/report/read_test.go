package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	body, _ := json.Marshal(sessionlog.Exit{End: sessionlog.End{Cause: cause, Status: status}, DurationMS: 4000})
	if usage != "" {
		body = append(body[:len(body)-1], `,"usage":`+usage+`}`...)
	}
	fmt.Fprintf(&l.b, `{"time":%q,"level":"INFO","msg":"exit",%s`+"\n", l.at.Format(time.RFC3339Nano), body[1:])
	return l
}

func (l *logOf) bytes() []byte { return l.b.Bytes() }

// readBytes reads the attempt of a log that holds b.
func readBytes(t *testing.T, b []byte) Attempt {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cursor-wrap-1.jsonl")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := ReadFile(path)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return a
}

// TestReadAttempt: an attempt is what its log's summary says
// (sessionlog.ReadSummary, tested there), in a report's terms.
func TestReadAttempt(t *testing.T) {
	t.Parallel()
	l := newLog("claude", "r1", 2).events(100<<10).add("usage", sessionlog.UsageRecord{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 300})
	a := readBytes(t, l.exit("exited", 0, `{"input_tokens":1200,"output_tokens":340,"cache_read_tokens":9000,"cache_write_tokens":0,"cost_usd":0.0123}`).bytes())
	if a.Agent != "claude" || a.Run != "r1" || a.Number != 2 || !a.Start.Equal(t0) || a.Exit == nil || a.Exit.Cause != "exited" || a.StartFailed {
		t.Fatalf("attempt %+v", a)
	}
	if u := a.Usage; u == nil || u.Input != 1200 || u.Output != 340 || u.CacheRead != 9000 || !u.HasCost || u.CostUSD != 0.0123 {
		t.Errorf("usage %+v: want the exit record's, not the last usage record's", u)
	}
	if want := t0.Add(3 * time.Second); !a.End.Equal(want) {
		t.Errorf("end %v, want the exit record's time %v", a.End, want)
	}
	budget := newLog("claude", "", 0).add(sessionlog.MsgHangDetected, sessionlog.HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindBudget, Budget: watchdog.BudgetCost}}).
		add("agent_error", sessionlog.AgentErrorRecord{Kind: "rate_limit", Source: "stdout"}).exit("over_budget", 86, "")
	if a := readBytes(t, budget.bytes()); a.Number != 1 || a.HangKind != watchdog.KindBudget || a.Budget != watchdog.BudgetCost || a.AgentError != "rate_limit" || a.Usage != nil {
		t.Errorf("over budget: %+v", a)
	}
	started := newLog("opencode", "", 1).add(sessionlog.MsgStartFailed, sessionlog.StartFailed{Error: "exec format error"})
	if a := readBytes(t, started.bytes()); !a.StartFailed || a.Exit != nil {
		t.Errorf("start failed: %+v", a)
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
