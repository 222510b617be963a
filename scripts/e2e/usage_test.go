package e2e

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/job"
)

// usageFixture is a Claude run whose first message spans three
// content-block events, each repeating the message's usage.
var usageFixture = filepath.Join("stream", "testdata", "usage", "claude-blocks.jsonl")

// usageWords is what the fixture's agent spent, as people are told it.
const usageWords = "usage: tokens in 8, out 410, cache read 31,200, write 1,500, cost $0.0187"

// TestUsageRecords: the log keeps the running total of what the agent
// reported, a usage record each time it changes (a message repeated over
// its blocks counted once, the result's totals last), and the exit record
// holds the attempt's total. The summary line, the finish notification,
// sessions (its column and --json) and inspect say it.
func TestUsageRecords(t *testing.T) {
	t.Parallel()
	h := newHook(t)
	r := runWrapper(t, []string{steps("replay", usageFixture, "exit", "0"), "CURSOR_WRAP_NOTIFY=" + h.URL}, nil,
		"--agent", "claude", "--notify-on", "finish", "--", "fix it")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !bytes.Contains(r.stderr, []byte("; 1 tool call; "+usageWords+"; longest silence")) {
		t.Errorf("summary line: %s", r.stderr)
	}
	checkNotified(t, h, strings.TrimPrefix(usageWords, "usage: "))
	table, list := sessionsOf(t, r.logDir)
	if !regexp.MustCompile(`\n\S+ \S+ +\S+ +claude +ok +0 +in 8 out 410 cache 32\.7k \$0\.0187 +3c1e9a70`).Match(table) {
		t.Errorf("sessions:\n%s", table)
	}
	if len(list) != 1 || list[0].Usage == nil || list[0].Usage.OutputTokens != 410 || list[0].Usage.CostUSD == nil || *list[0].Usage.CostUSD != 0.0187 {
		t.Errorf("sessions --json: %+v", list)
	}
	if out := inspectLast(t, r.logDir); !bytes.Contains(out, []byte("\nusage    tokens in 8, out 410, cache read 31,200, write 1,500, cost $0.0187 (3 reports, the last at +")) {
		t.Errorf("inspect:\n%s", out)
	}
	want := []map[string]any{
		{"input_tokens": 3.0, "output_tokens": 8.0, "cache_read_tokens": 15000.0, "cache_write_tokens": 1200.0},
		{"input_tokens": 8.0, "output_tokens": 10.0, "cache_read_tokens": 31200.0, "cache_write_tokens": 1500.0},
		{"input_tokens": 8.0, "output_tokens": 410.0, "cache_read_tokens": 31200.0, "cache_write_tokens": 1500.0, "cost_usd": 0.0187},
	}
	recs := logRecords(t, r.logDir, "usage")
	if len(recs) != len(want) {
		t.Fatalf("usage records %v, want %v", recs, want)
	}
	for i, rec := range recs {
		delete(rec, "time")
		delete(rec, "level")
		delete(rec, "msg")
		if !sameFields(rec, want[i]) {
			t.Errorf("usage record %d: %v, want %v", i, rec, want[i])
		}
	}
	exit := firstRecord(t, r.logDir, "exit")
	if u, _ := exit["usage"].(map[string]any); !sameFields(u, want[2]) {
		t.Errorf("exit record's usage %v, want %v", exit["usage"], want[2])
	}
}

// TestUsageNotReported: an agent that reports no usage (a cursor-agent
// build before 2026.08) leaves no usage record, the exit record says
// nothing of usage, and every surface says it was not reported, never 0.
func TestUsageNotReported(t *testing.T) {
	t.Parallel()
	h := newHook(t)
	r := runWrapper(t, []string{steps("replay", filepath.Join("stream", "testdata", "normal.jsonl"), "100", "exit", "0"), "CURSOR_WRAP_NOTIFY=" + h.URL}, nil,
		"--notify-on", "finish", "--", "fix it")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !bytes.Contains(r.stderr, []byte("; usage: not reported; ")) {
		t.Errorf("summary line: %s", r.stderr)
	}
	checkNotified(t, h, "not reported")
	table, list := sessionsOf(t, r.logDir)
	if !regexp.MustCompile(` +ok +0 +not reported +`).Match(table) || len(list) != 1 || list[0].Usage != nil {
		t.Errorf("sessions:\n%s\n--json: %+v", table, list)
	}
	if out := inspectLast(t, r.logDir); !bytes.Contains(out, []byte("\nusage    not reported\n")) {
		t.Errorf("inspect:\n%s", out)
	}
	if recs := logRecords(t, r.logDir, "usage"); len(recs) != 0 {
		t.Errorf("usage records %v", recs)
	}
	if exit := firstRecord(t, r.logDir, "exit"); exit == nil || exit["usage"] != nil {
		t.Errorf("exit record %v", exit)
	}
}

// sameFields compares two decoded JSON objects of numbers.
func sameFields(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// checkNotified checks the one notification h received: its usage field,
// and its text, say usage.
func checkNotified(t *testing.T, h *hook, usage string) {
	t.Helper()
	got := h.received()
	var m struct{ Text, Usage string }
	if len(got) != 1 || json.Unmarshal(got[0], &m) != nil || m.Usage != usage || !strings.Contains(m.Text, "; usage: "+usage+". Session") {
		t.Errorf("notifications %q, want usage %q", got, usage)
	}
}

// sessionsOf runs sessions over dir, as a table and as --json.
func sessionsOf(t *testing.T, dir string) ([]byte, []job.Session) {
	t.Helper()
	table, err := exec.Command(wrapperBin, "sessions", "--log-dir", dir).Output()
	if err != nil {
		t.Fatalf("sessions: %v", err)
	}
	out, err := exec.Command(wrapperBin, "sessions", "--json", "--log-dir", dir).Output()
	var list []job.Session
	if err != nil || json.Unmarshal(out, &list) != nil {
		t.Fatalf("sessions --json: %v\n%s", err, out)
	}
	return table, list
}

func inspectLast(t *testing.T, dir string) []byte {
	t.Helper()
	out, err := exec.Command(wrapperBin, "inspect", "--last", "--log-dir", dir).Output()
	if err != nil {
		t.Fatalf("inspect: %v", err)
	}
	return out
}

// TestMCPUsage: an MCP run's result carries what the agent spent, in its
// structured content and its text; one that reported nothing says so.
func TestMCPUsage(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfigWith(t, `agent = "claude"`, ""), steps("replay", usageFixture, "exit", "0"))
	res := c.tool("run_agent", "", map[string]any{"prompt": "fix it"})
	u, _ := res.Structured["usage"].(map[string]any)
	if res.IsError || u["output_tokens"] != 410.0 || u["cache_read_tokens"] != 31200.0 || u["cost_usd"] != 0.0187 ||
		len(res.Content) != 2 || !strings.Contains(res.Content[1].Text, "; "+usageWords+"; log ") {
		t.Errorf("answered: %+v", res)
	}
	c = serve(t, mcpConfig(t), steps("line", initLine, "exit", "3"))
	res = c.tool("run_agent", "", map[string]any{"prompt": "fix it"})
	if !res.IsError || res.Structured["usage"] != nil || !strings.Contains(res.text(), " Usage: not reported. ") {
		t.Errorf("failed: %+v", res)
	}
}

// TestUsageEveryAgent replays each agent's real capture through the built
// binary, as that agent: the log's usage records and the exit record's
// usage are what the agent reported, counted its way.
func TestUsageEveryAgent(t *testing.T) {
	t.Parallel()
	const cost = 0.00066
	for _, tc := range []struct {
		agent, capture string
		reports        int
		want           map[string]any
	}{
		{"claude", "agents/claude-B.jsonl", 3, map[string]any{"input_tokens": 100.0, "output_tokens": 24.0, "cache_read_tokens": 0.0, "cache_write_tokens": 0.0, "cost_usd": cost}},
		{"codex", "agents/codex-B.jsonl", 1, map[string]any{"input_tokens": 100.0, "output_tokens": 24.0, "cache_read_tokens": 0.0, "cache_write_tokens": 0.0}},
		{"gemini", "agents/gemini-B.jsonl", 1, map[string]any{"input_tokens": 100.0, "output_tokens": 24.0, "cache_read_tokens": 0.0, "cache_write_tokens": 0.0}},
		{"opencode", "agents/opencode-B.jsonl", 2, map[string]any{"input_tokens": 100.0, "output_tokens": 24.0, "cache_read_tokens": 0.0, "cache_write_tokens": 0.0, "cost_usd": cost}},
		// cursor-agent cannot run here: a public capture of a 2026.08 build.
		{"cursor", "noisy.jsonl", 1, map[string]any{"input_tokens": 86214.0, "output_tokens": 377.0, "cache_read_tokens": 14720.0, "cache_write_tokens": 0.0}},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			t.Parallel()
			capture := filepath.Join("stream", "testdata", tc.capture)
			r := runWrapper(t, []string{steps("replay", capture, "100", "exit", "0")}, nil, "--agent", tc.agent, "--", "fix it")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if n := len(logRecords(t, r.logDir, "usage")); n != tc.reports {
				t.Errorf("%d usage records, want %d", n, tc.reports)
			}
			exit := firstRecord(t, r.logDir, "exit")
			if u, _ := exit["usage"].(map[string]any); !sameFields(u, tc.want) {
				t.Errorf("exit record's usage %v, want %v", exit["usage"], tc.want)
			}
		})
	}
}
