package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/sessionlog/report"
)

// Faults of issue 33 (round four) played against the built binary: each
// test failed before its fix.

// craftedRun writes, in dir, the log of a one-attempt run of claude that
// started at start, took a second and reported input tokens.
func craftedRun(t *testing.T, dir, run string, start time.Time, input int64) {
	t.Helper()
	at := func(d time.Duration) string { return start.Add(d).UTC().Format(time.RFC3339Nano) }
	log := fmt.Sprintf(`{"time":%q,"level":"INFO","msg":"command","attempt":1,"run":%q,"agent":"claude","path":"/bin/claude","argv":["-p","x"],"env":[],"watch":"events"}
{"time":%q,"level":"INFO","msg":"exit","cause":"exited","status":0,"duration_ms":1000,"lines":1,"tool_calls":0,"longest_silence_ms":0,"usage":{"input_tokens":%d,"output_tokens":2,"cache_read_tokens":0,"cache_write_tokens":0}}
`, at(0), run, at(time.Second), input)
	name := fmt.Sprintf("cursor-wrap-%d-%s.jsonl", start.UnixMilli(), run)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
}

// reportIn runs report --json over dir with the time zone tz.
func reportIn(t *testing.T, tz, dir string) (groups []report.Group, total report.Group) {
	t.Helper()
	r := runRaw(t, []string{"TZ=" + tz}, "report", "--json", "--log-dir", dir)
	var doc struct {
		Groups []report.Group
		Total  report.Group
	}
	if err := json.Unmarshal(r.stdout, &doc); r.code != 0 || err != nil {
		t.Fatalf("report: exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	return doc.Groups, doc.Total
}

// TestReportDaysAndSums (33.12): report's per-day and per-agent token
// sums saturate on a crafted log (two runs near the largest int64 gave
// -6 input tokens), and a run falls on the local date it started on:
// the same logs group by another day under TZ=Pacific/Kiritimati (UTC+14)
// and TZ=Pacific/Pago_Pago (UTC-11).
func TestReportDaysAndSums(t *testing.T) {
	t.Parallel()
	for _, zone := range []string{"Pacific/Kiritimati", "Pacific/Pago_Pago"} {
		if _, err := time.LoadLocation(zone); err != nil {
			t.Fatalf("no time zone data for %s (install tzdata): %v", zone, err)
		}
	}
	dir := t.TempDir()
	noon := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	craftedRun(t, dir, "a", noon, math.MaxInt64-2)
	craftedRun(t, dir, "b", noon.Add(time.Minute), math.MaxInt64-2)
	craftedRun(t, dir, "c", noon.Add(-11*time.Hour), 5) // 01:00 UTC

	for _, tc := range []struct {
		tz   string
		days []string // the groups' days, in order
	}{
		{"UTC", []string{"2026-03-01"}},
		{"Pacific/Kiritimati", []string{"2026-03-01", "2026-03-02"}}, // 15:00 on the 1st; 02:00 on the 2nd
		{"Pacific/Pago_Pago", []string{"2026-02-28", "2026-03-01"}},  // 14:00 on the 28th; 01:00 on the 1st
	} {
		groups, total := reportIn(t, tc.tz, dir)
		var days []string
		for _, g := range groups {
			days = append(days, g.Day)
		}
		if fmt.Sprint(days) != fmt.Sprint(tc.days) {
			t.Errorf("TZ=%s: days %v, want %v", tc.tz, days, tc.days)
		}
		if u := total.Usage; u.InputTokens != math.MaxInt64 || u.OutputTokens != 6 {
			t.Errorf("TZ=%s: total %+v, want the input at the largest int64", tc.tz, u)
		}
		for _, g := range groups {
			if g.Usage.InputTokens < 0 {
				t.Errorf("TZ=%s: %s sums %d input tokens", tc.tz, g.Day, g.Usage.InputTokens)
			}
		}
	}
}

// TestReloadRefusesAnInvalidValue (33.10): a config file saved under a
// running wrapper that parses but holds a value that fails validation
// (idle_timeout = "-5s") is not applied: the last good values stay, a
// config_error record and a warning say why, and the next good save
// applies. Applied, the negative idle timeout would end the run at once
// as an idle hang, as one bad save would every running agent.
func TestReloadRefusesAnInvalidValue(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "idle_timeout = \"20s\"\n")
	w := startWatched(t, cfg)
	save(t, cfg, "idle_timeout = \"-5s\"\n")
	w.waitLine(t, "config not reloaded, keeping the last good values: "+cfg)
	save(t, cfg, "idle_timeout = \"20s\"\nhard_timeout = \"1s\"\n")
	w.hung(t, "deadline", `"changed":[{"key":"hard_timeout","old":"0s","new":"1s"}]`)
	var refused int
	for _, rec := range readLogs[map[string]any](t, w.logDir) {
		if rec["msg"] == "config_error" && strings.Contains(fmt.Sprint(rec["error"]), "idle_timeout") {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d config_error records naming idle_timeout, want 1; stderr %s", refused, w.stderr.String())
	}
}

// TestBudgetCountsCacheWrites (33.7): a token budget counts what the
// agent was billed for, cache writes included. A Claude run whose first
// message writes 200,000 tokens to the cache is stopped at that message
// by --max-tokens 50000 (it ran to its end, exit 0, its tally at 12,024);
// with --include-partial-messages its output counts at each message's end;
// a cursor-agent result whose cache writes pass the budget says so.
func TestBudgetCountsCacheWrites(t *testing.T) {
	t.Parallel()
	message := func(id string, in, write, out int) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"type":"message","role":"assistant","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":90000,"output_tokens":%d}},"session_id":"s-1"}`, id, in, write, out)
	}
	result := `{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-1","total_cost_usd":0.9,"usage":{"input_tokens":12000,"cache_creation_input_tokens":200000,"output_tokens":24}}`
	r := runWrapper(t, []string{steps("line", initLine, "line", message("msg_1", 12, 200000, 1), "tick", "600", "100ms", "line", result)}, nil,
		"--agent", "claude", "--idle-timeout", "60s", "--max-tokens", "50000", "--", "fix it")
	words := "the agent reported 200,013 tokens of input, cache writes and output, past the max_tokens budget of 50,000"
	if r.code != 86 || bytes.Contains(r.stdout, []byte(`"type":"result"`)) || !bytes.Contains(r.stderr, []byte(words)) {
		t.Errorf("cache writes: exit %d, stopped before the result %v; stderr %s", r.code, !bytes.Contains(r.stdout, []byte(`"type":"result"`)), r.stderr)
	}

	start := `{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_creation_input_tokens":0,"output_tokens":1}}},"session_id":"s-1"}`
	end := `{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":60000}},"session_id":"s-1"}`
	r = runWrapper(t, []string{steps("line", initLine, "line", start, "line", message("msg_1", 10, 0, 1), "line", end, "tick", "600", "100ms", "line", result)}, nil,
		"--agent", "claude", "--idle-timeout", "60s", "--max-tokens", "50000", "--", "--include-partial-messages", "fix it")
	if r.code != 86 || !bytes.Contains(r.stderr, []byte("the agent reported 60,010 tokens")) {
		t.Errorf("a message's end: exit %d; stderr %s", r.code, r.stderr)
	}

	cursor := `{"type":"result","subtype":"success","result":"done","session_id":"s-1","usage":{"inputTokens":900,"outputTokens":200,"cacheReadTokens":500000,"cacheWriteTokens":49000}}`
	r = runWrapper(t, []string{steps("line", initLine, "line", cursor)}, nil, "--max-tokens", "50000", "--", "fix it")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("the agent reported 50,100 tokens of input, cache writes and output, past the max_tokens budget of 50,000, when the run had ended")) {
		t.Errorf("cursor at its end: exit %d; stderr %s", r.code, r.stderr)
	}
}
