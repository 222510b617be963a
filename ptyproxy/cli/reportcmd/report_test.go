package reportcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/sessionlog/report"
	"cursor-wrap/scripts/testenv"
	"cursor-wrap/watchdog"
)

func TestMain(m *testing.M) {
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testenv.IsolateConfig()
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// run runs the command in process with args, and returns what it wrote
// and its exit status.
func run(args ...string) (stdout, stderr string, code int) {
	var out, errs bytes.Buffer
	code = Run(&cli.Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errs, Commands: cli.Table{Command}}, args)
	return out.String(), errs.String(), code
}

// writeLog writes the session log of attempt n of run of agent into dir,
// as the wrapper does: its command, its start, and the records of its end.
func writeLog(t *testing.T, dir, agent, run string, n int, end ...sessionlog.Record) {
	t.Helper()
	var b bytes.Buffer
	rec := sessionlog.NewRecorder(nil, sessionlog.SinkTo(&b))
	rec.Write(&sessionlog.Command{Attempt: n, Run: run, Agent: agent, Path: "/bin/" + agent, Argv: []string{"-p", "the prompt"}, Watch: "events"})
	rec.Write(&sessionlog.Start{Pid: 1 << 30, TickMS: 5000})
	for _, r := range end {
		rec.Write(r)
	}
	name := fmt.Sprintf("cursor-wrap-%d-%s-%d.jsonl", time.Now().UnixMilli(), run, n)
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReportCommand reports on a log dir of cursor's runs (one
// answered, one that failed, one that hung, one that hung once and was
// restarted: two logs, one run) and claude's (one that reported its usage
// and one stopped by its budget), beside a log that does not read. (Runs
// of the built wrapper: scripts/e2e.)
func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cost := 0.0187
	exit := func(cause string, status int) *sessionlog.Exit {
		return &sessionlog.Exit{End: sessionlog.End{Cause: cause, Status: status}, DurationMS: 1000}
	}
	hang := &sessionlog.HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindIdle}}
	writeLog(t, dir, "cursor", "r-ok", 1, exit("exited", 0))
	writeLog(t, dir, "cursor", "r-fail", 1, exit("exited", 3))
	writeLog(t, dir, "cursor", "r-hang", 1, hang, exit("hung", 124))
	writeLog(t, dir, "cursor", "r-again", 1, hang, exit("hung", 124))
	writeLog(t, dir, "cursor", "r-again", 2, exit("exited", 0))
	writeLog(t, dir, "claude", "r-usage", 1, &sessionlog.Exit{End: sessionlog.End{Cause: "exited", Status: 0}, DurationMS: 900,
		Usage: &sessionlog.UsageRecord{InputTokens: 8, OutputTokens: 410, CostUSD: &cost}})
	writeLog(t, dir, "claude", "r-budget", 1, &sessionlog.HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindBudget, Budget: "max_tokens"}},
		exit("over_budget", 86))
	if err := os.WriteFile(filepath.Join(dir, "cursor-wrap-1-crafted.jsonl"), []byte(`{"time":"x","msg":"command"`), 0o600); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := run("--json", "--log-dir", dir)
	var doc Doc
	if err := json.Unmarshal([]byte(stdout), &doc); code != 0 || err != nil {
		t.Fatalf("--json: exit %d, %v: %s\n%s", code, err, stderr, stdout)
	}
	if doc.Logs != 8 || doc.Skipped != 1 || doc.Running != 0 || len(doc.Groups) != 2 {
		t.Fatalf("report read %d logs, skipped %d, %d running, in %d groups; want 8, 1, 0, 2", doc.Logs, doc.Skipped, doc.Running, len(doc.Groups))
	}
	claude, cursor := doc.Groups[0], doc.Groups[1]
	if e := claude.Ended[report.OverBudget]; claude.Agent != "claude" || e == nil || e.Kinds["max_tokens"] != 1 {
		t.Errorf("claude ended %+v: want one run over its max_tokens budget", claude.Ended)
	}
	if u := claude.Usage; u.RunsReported != 1 || u.OutputTokens != 410 || u.CostUSD == nil || *u.CostUSD != 0.0187 {
		t.Errorf("claude's usage %+v: want its exit record's", u)
	}
	ended := func(category string) report.Ended {
		if e := cursor.Ended[category]; e != nil {
			return *e
		}
		return report.Ended{}
	}
	if cursor.Agent != "cursor" || cursor.Runs != 4 || cursor.Attempts != 5 || ended(report.Answered).Runs != 2 ||
		ended(report.Hung).Kinds["idle"] != 1 || ended(report.Other).Kinds["status 3"] != 1 {
		t.Errorf("cursor %+v: want 4 runs in 5 attempts, 2 answered, one hung (idle), one other (status 3)", cursor)
	}
	if stdout, _, _ := run("--json", "--log-dir", dir, "--agent", "claude"); json.Unmarshal([]byte(stdout), &doc) != nil || len(doc.Groups) != 1 || doc.Total.Runs != 2 {
		t.Errorf("--agent claude: %s", stdout)
	}
	if stdout, _, _ := run("--json", "--log-dir", dir, "--since", "2099-01-01"); json.Unmarshal([]byte(stdout), &doc) != nil || doc.Total.Runs != 0 {
		t.Errorf("--since 2099-01-01: %s", stdout)
	}

	// For people: an aligned table, no colour where stdout is no terminal,
	// the logs that do not read counted on stderr, and log_keep said when
	// the log dir holds as many logs as it keeps.
	config := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(config, []byte("log_keep = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run("--log-dir", dir, "--config", config)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "DAY ") || !strings.HasPrefix(lines[3], "total ") || strings.Contains(stdout, "\x1b") {
		t.Fatalf("report: exit %d:\n%s", code, stdout)
	}
	for i, want := range []string{"2 ", "4 ", "6 "} {
		if col := strings.Index(lines[0], "RUNS"); lines[i+1][col:col+2] != want {
			t.Errorf("RUNS is not aligned:\n%s", stdout)
		}
	}
	if cost := strings.Index(lines[0], "COST"); !strings.Contains(lines[1], "1 (max_tokens)") || lines[1][cost:] != "$0.0187" {
		t.Errorf("claude's usage:\n%s", stdout)
	}
	if !strings.Contains(lines[2], "1 (idle)") || !strings.Contains(lines[4], "log_keep=3 keeps the newest 3 logs") {
		t.Errorf("report:\n%s", stdout)
	}
	if stderr != "cursor-wrap: skipped 1 log that does not read\n" {
		t.Errorf("stderr %q does not count the log that does not read", stderr)
	}
	if _, stderr, code := run("--since", "yesterday"); code != 2 || !strings.Contains(stderr, "7d, 36h") {
		t.Errorf("--since yesterday: exit %d: %s", code, stderr)
	}
}
