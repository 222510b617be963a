package sessionlog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cursor-wrap/watchdog"
)

// logOf builds a session log as the wrapper writes it, a second a record
// from t0.
type logOf struct {
	b  bytes.Buffer
	at time.Time
}

func newLog(agent, run string, attempt int) *logOf {
	l := &logOf{at: t0}
	return l.add(Command{Attempt: attempt, Run: run, Agent: agent, Path: "/usr/bin/" + agent,
		Argv: []string{"-p", "fix the tests"}, Env: []string{"HOME=/home/u"}, Watch: "events"}).add(Start{Pid: 42, TickMS: 5000})
}

func (l *logOf) add(rec Record) *logOf {
	l.b.Write(encode(l.at, rec))
	l.at = l.at.Add(time.Second)
	return l
}

// event adds one line of the agent's output.
func (l *logOf) event(line string) *logOf {
	l.b.Write(AppendEvent(nil, Event{Time: l.at, RecvTS: l.at.UnixMilli(), Raw: []byte(line)}))
	l.at = l.at.Add(time.Second)
	return l
}

// events adds n bytes or so of output, a real capture's line each, within
// one second.
func (l *logOf) events(n int) *logOf {
	line := []byte(`{"type":"assistant","message":{"id":"msg_01","content":[{"type":"text","text":"Reading the tests first."}],"usage":{"input_tokens":3,"output_tokens":12}}}`)
	rec := AppendEvent(nil, Event{Time: l.at, RecvTS: l.at.UnixMilli(), Type: "assistant", Raw: line})
	l.b.Grow(n + len(rec))
	for start := l.b.Len(); l.b.Len()-start < n; {
		l.b.Write(rec)
	}
	l.at = l.at.Add(time.Second)
	return l
}

func (l *logOf) exit(cause string, status int, usage *UsageRecord) *logOf {
	return l.add(Exit{End: End{Cause: cause, Status: status}, DurationMS: 4000, Usage: usage})
}

func (l *logOf) bytes() []byte { return l.b.Bytes() }

// counted is a log that counts the bytes read of it.
type counted struct {
	r    io.ReaderAt
	read atomic.Int64
}

func (c *counted) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read.Add(int64(n))
	return n, err
}

func summaryOf(t *testing.T, b []byte) Summary {
	t.Helper()
	s, err := summarize(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("summarize: %v", err)
	}
	return s
}

func TestSummaryAnswered(t *testing.T) {
	t.Parallel()
	l := newLog("claude", "r1", 1).event(`{"type":"system","subtype":"init","session_id":"s-1"}`).events(100 << 10).
		add(UsageRecord{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 300})
	cost := 0.0123
	l.exit("exited", 0, &UsageRecord{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 9000, CostUSD: &cost}).
		add(NotifySent{Event: "finish", Target: "https://hooks.example", Tries: 1})
	s := summaryOf(t, l.bytes())
	c := s.Command
	if c.Agent != "claude" || c.Run != "r1" || c.Attempt != 1 || !s.Start.Equal(t0) || s.Pid != 42 || s.SessionID != "s-1" {
		t.Fatalf("summary %+v", s)
	}
	if s.Exit == nil || s.Exit.Cause != "exited" || !s.ExitAt.Equal(t0.Add(5*time.Second)) {
		t.Errorf("exit %+v at %v", s.Exit, s.ExitAt)
	}
	if !s.End.Equal(s.ExitAt) {
		t.Errorf("end %v, want the exit record's time %v: a notification beside the run is no part of it", s.End, s.ExitAt)
	}
	if u := s.Usage; u == nil || u.InputTokens != 1200 || u.OutputTokens != 340 || u.CacheReadTokens != 9000 || u.CostUSD == nil {
		t.Errorf("usage %+v: want the exit record's, not the last usage record's", u)
	}
}

// A log whose exit record has no usage (a wrapper killed after its last
// usage record, or an agent that reports nothing) reads as its last usage
// record says, or as not reported: never 0.
func TestSummaryUsageFallbacks(t *testing.T) {
	t.Parallel()
	l := newLog("codex", "", 1).add(UsageRecord{InputTokens: 1, OutputTokens: 2}).add(UsageRecord{InputTokens: 5, OutputTokens: 7})
	if s := summaryOf(t, l.bytes()); s.Usage == nil || s.Usage.InputTokens != 5 || s.Usage.OutputTokens != 7 || s.Exit != nil {
		t.Errorf("no exit record: %+v, want the last usage record's", s)
	}
	if s := summaryOf(t, newLog("gemini", "", 1).exit("exited", 0, nil).bytes()); s.Usage != nil {
		t.Errorf("no usage reported: %+v, want nil", s.Usage)
	}
}

// The session is named in the head; a log whose head names none (an
// agent that named it only at its end) is named by its last window.
func TestSummarySessionID(t *testing.T) {
	t.Parallel()
	late := newLog("claude", "", 1).events(200<<10).event(`{"type":"result","subtype":"success","session_id":"s-late"}`).exit("exited", 0, nil)
	if s := summaryOf(t, late.bytes()); s.SessionID != "s-late" {
		t.Errorf("session %q, want s-late from the last window", s.SessionID)
	}
	unknown := newLog("an agent of a later version", "", 1).event(`{"type":"system","subtype":"init","session_id":"s-1"}`).exit("exited", 0, nil)
	if s := summaryOf(t, unknown.bytes()); s.SessionID != "" || s.Exit == nil {
		t.Errorf("an agent it does not know: %+v", s)
	}
}

// The hang and agent error records come before the kill, the agent's last
// words and the on_hang command: when those push them out of the window,
// it grows.
func TestSummaryKindsBeforeTheWindow(t *testing.T) {
	t.Parallel()
	hung := newLog("cursor", "", 1).events(4<<10).add(HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindTool}}).
		events(2*windowSize).exit("hung", 124, nil)
	if s := summaryOf(t, hung.bytes()); s.Hang == nil || s.Hang.Reason.Kind != watchdog.KindTool {
		t.Errorf("hang %+v, want %q", s.Hang, watchdog.KindTool)
	}
	budget := newLog("claude", "", 1).add(HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindBudget, Budget: watchdog.BudgetCost}}).
		events(2*windowSize).exit("over_budget", 86, nil)
	if s := summaryOf(t, budget.bytes()); s.Hang == nil || s.Hang.Reason.Budget != watchdog.BudgetCost {
		t.Errorf("budget %+v, want %q", s.Hang, watchdog.BudgetCost)
	}
	failed := newLog("claude", "", 1).add(AgentErrorRecord{Kind: "rate_limit", Source: "stdout"}).
		events(2*windowSize).exit("exited", 80, nil)
	if s := summaryOf(t, failed.bytes()); s.AgentError == nil || s.AgentError.Kind != "rate_limit" {
		t.Errorf("agent error %+v, want rate_limit", s.AgentError)
	}
	started := newLog("opencode", "", 1).add(StartFailed{Error: "exec format error", Status: 126})
	if s := summaryOf(t, started.bytes()); s.StartFailed == nil || s.StartFailed.Status != 126 || s.Exit != nil {
		t.Errorf("start failed: %+v", s)
	}
}

// TestSummaryBounded: what a summary reads of a log is bounded whatever
// the log's size: its ends, never its middle. A hang record further from
// the end than the largest window is not found; the log still reads.
func TestSummaryBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		log  *logOf
		max  int64
	}{
		{"answered", newLog("claude", "", 1).event(`{"type":"system","subtype":"init","session_id":"s-1"}`).events(16<<20).exit("exited", 0, nil), 4 * windowSize},
		{"hung, its record in the middle", newLog("cursor", "", 1).events(8<<20).add(HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindIdle}}).
			events(8<<20).exit("hung", 124, nil), 2*maxWindow + headSize},
		{"unfinished, no usage", newLog("cursor", "", 1).events(16 << 20), 2*maxWindow + headSize},
	} {
		b := tc.log.bytes()
		c := &counted{r: bytes.NewReader(b)}
		s, err := summarize(c, int64(len(b)))
		if err != nil || s.Command.Agent == "" {
			t.Fatalf("%s: %v, %+v", tc.name, err, s)
		}
		if got := c.read.Load(); got > tc.max {
			t.Errorf("%s: read %d KiB of a %d MiB log, want at most %d KiB", tc.name, got>>10, len(b)>>20, tc.max>>10)
		}
		if strings.HasPrefix(tc.name, "hung") && (s.Exit == nil || s.Exit.Cause != "hung" || s.Hang != nil) {
			t.Errorf("%s: %+v", tc.name, s)
		}
	}
}

// A log cut short reads as far as it goes: a torn last record never was.
// One that is no session log, or whose records a summary needs do not
// read, is ErrNotALog.
func TestSummaryDamaged(t *testing.T) {
	t.Parallel()
	whole := newLog("claude", "", 1).events(1<<10).exit("exited", 0, &UsageRecord{InputTokens: 1, OutputTokens: 2}).bytes()
	torn := whole[:len(whole)-10]
	if s := summaryOf(t, torn); s.Exit != nil || s.Command.Agent != "claude" || s.End.IsZero() {
		t.Errorf("torn exit record: %+v, want an attempt with no exit, ended at its last whole record", s)
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
		if _, err := summarize(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrNotALog) {
			t.Errorf("%s: err %v, want ErrNotALog", name, err)
		}
	}
}

func TestReadSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "cursor-wrap-1.jsonl")
	os.WriteFile(path, newLog("claude", "", 1).exit("exited", 0, nil).bytes(), 0o600)
	if s, err := ReadSummary(path); err != nil || s.Path != path || s.Exit == nil {
		t.Errorf("%+v, %v", s, err)
	}
	if c, err := ReadCommand(path); err != nil || c.Agent != "claude" {
		t.Errorf("command %+v, %v", c, err)
	}
	link := filepath.Join(dir, "cursor-wrap-2.jsonl")
	os.Symlink(path, link)
	if _, err := ReadSummary(link); err == nil {
		t.Error("a link read: a log is a file of its own")
	}
	if _, err := ReadCommand(link); err == nil {
		t.Error("a link's command read: a log is a file of its own")
	}
	notALog := filepath.Join(dir, "cursor-wrap-3.jsonl")
	os.WriteFile(notALog, []byte(`{"time":"2026-11-20T09:30:00Z","level":"INFO","msg":"start","pid":1}`+"\n"), 0o600)
	if _, err := ReadCommand(notALog); !errors.Is(err, ErrNotALog) {
		t.Errorf("no command first: %v, want ErrNotALog", err)
	}
}

// FuzzSummary: whatever a log holds, summarizing it neither panics nor
// reads past what it is told it has, and an end is a record's.
func FuzzSummary(f *testing.F) {
	f.Add(newLog("claude", "r", 2).events(1<<10).exit("exited", 0, &UsageRecord{InputTokens: 1}).bytes())
	f.Add(newLog("cursor", "", 1).add(HangDetected{}).exit("hung", 124, nil).bytes())
	f.Add(newLog("codex", "", 1).add(UsageRecord{InputTokens: 3}).bytes())
	f.Add([]byte(`{"time":"2026-11-20T09:30:00Z","level":"INFO","msg":"command"}` + "\n" + `{"time":"x","level":"INFO","msg":"exit"`))
	f.Add([]byte(strings.Repeat("\n", 10)))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := summarize(bytes.NewReader(b), int64(len(b)))
		if err == nil && s.Exit == nil && !s.ExitAt.IsZero() {
			t.Errorf("an exit time without an exit record: %+v", s)
		}
	})
}
