package e2e

import (
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
