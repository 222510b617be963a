package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunToldWhole runs the fake agent hanging, then, resumed, answering:
// one run of two attempts. Its end summary, sessions (one row, its
// attempts under it with --attempts, one object with its attempts inside
// in --json) and inspect by the session id tell the whole run: the
// attempts, the restart and why, the time from the first start.
func TestRunToldWhole(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "hung-once")
	r := runWrapper(t, []string{steps("line", initLine, "hang-once", marker, "line", resultLine)}, nil,
		"--idle-timeout", "1s", "--restarts", "1", "--", "fix the tests")
	summary := regexp.MustCompile(`session s-1 finished \(exit 0\) after ([\d.]+)m?s over 2 attempts \(attempt 1 hung \(idle\) and was killed after [\d.]+m?s\); `)
	if r.code != 0 || !summary.Match(r.stderr) {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}

	table := runRaw(t, nil, "sessions", "--log-dir", r.logDir)
	rows := strings.Split(strings.TrimSuffix(string(table.stdout), "\n"), "\n")
	if table.code != 0 || len(rows) != 2 || !strings.Contains(rows[1], "ok after 2 attempts (hung (idle))") || !regexp.MustCompile(`s-1 +fix the tests$`).MatchString(rows[1]) {
		t.Errorf("sessions: exit %d:\n%s", table.code, table.stdout)
	}
	expanded := runRaw(t, nil, "sessions", "--attempts", "--log-dir", r.logDir)
	rows = strings.Split(strings.TrimSuffix(string(expanded.stdout), "\n"), "\n")
	if len(rows) != 4 || !strings.HasPrefix(rows[2], "  attempt 1 ") || !regexp.MustCompile(`hung \(idle\) +124 +not reported +s-1 +-$`).MatchString(rows[2]) ||
		!strings.HasPrefix(rows[3], "  attempt 2 ") || !strings.Contains(rows[3], "the last attempt hung (idle); resuming session s-1") {
		t.Errorf("sessions --attempts: %q", rows)
	}

	var list []struct {
		Run        string `json:"run"`
		ID         string `json:"id"`
		Prompt     string `json:"prompt"`
		Outcome    string `json:"outcome"`
		Hung       bool   `json:"hung"`
		DurationMS int64  `json:"duration_ms"`
		ExitStatus *int   `json:"exit_status"`
		Attempts   []struct {
			Number     int    `json:"attempt"`
			Outcome    string `json:"outcome"`
			DurationMS int64  `json:"duration_ms"`
			Restart    string `json:"restart"`
			LogPath    string `json:"log_path"`
		} `json:"attempts"`
	}
	js := runRaw(t, nil, "sessions", "--json", "--log-dir", r.logDir)
	if err := json.Unmarshal(js.stdout, &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions --json: %v:\n%s", err, js.stdout)
	}
	run := list[0]
	if run.Run == "" || run.ID != "s-1" || run.Prompt != "fix the tests" || run.Outcome != "ok" || !run.Hung || *run.ExitStatus != 0 ||
		len(run.Attempts) != 2 || run.Attempts[0].Outcome != "hung (idle)" || run.Attempts[0].Restart != "" ||
		run.Attempts[1].Number != 2 || run.Attempts[1].Outcome != "ok" || !strings.HasPrefix(run.Attempts[1].Restart, "the last attempt hung (idle)") ||
		run.DurationMS < run.Attempts[0].DurationMS+run.Attempts[1].DurationMS {
		t.Errorf("sessions --json: %+v", run)
	}

	// The id sessions printed, cut short, opens the run: both attempts.
	for _, args := range [][]string{{"inspect", "--log-dir", r.logDir, "s-"}, {"inspect", "--last", "--log-dir", r.logDir}} {
		in := runRaw(t, nil, args...)
		out := string(in.stdout)
		if in.code != 0 || !strings.Contains(out, "ended    ok after 2 attempts (hung (idle)) after ") ||
			!strings.Contains(out, "── attempt 1 of 2\n") || !strings.Contains(out, "── attempt 2 of 2: the last attempt hung (idle)") {
			t.Errorf("%q: exit %d, stderr %s:\n%s", args, in.code, in.stderr, out)
		}
	}
}
