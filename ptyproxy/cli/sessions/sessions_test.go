package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/sessionlog"
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

// writeLog writes the session log of one attempt of cursor-agent into
// dir, as the wrapper does: its command with the prompt, its start, the
// init event naming session id, and the records of its end.
func writeLog(t *testing.T, dir string, n int, id string, end ...sessionlog.Record) {
	t.Helper()
	writeAttempt(t, dir, n, sessionlog.Command{Attempt: 1, Run: id, Agent: "cursor"}, id, "", end...)
}

// epoch is when the logs the tests write start, each n ms after it.
var epoch = time.Now()

// writeAttempt writes the log of attempt c.Attempt of run c.Run of agent
// c.Agent, n ms from now: a restart's why when it has one.
func writeAttempt(t *testing.T, dir string, n int, c sessionlog.Command, id, why string, end ...sessionlog.Record) {
	t.Helper()
	var b bytes.Buffer
	rec := sessionlog.NewRecorder(nil, sessionlog.SinkTo(&b))
	c.Path, c.Watch = "/bin/cursor-agent", "events"
	c.Argv = []string{"--print", "--output-format", "stream-json", "-p", id + " prompt"}
	rec.Write(&c)
	if why != "" {
		rec.Write(&sessionlog.Restart{Attempt: c.Attempt, Why: why})
	}
	rec.Write(&sessionlog.Start{Pid: 1 << 30, TickMS: 5000})
	now := epoch.Add(time.Duration(n) * time.Millisecond)
	rec.Events(rec.AppendEvent(nil, sessionlog.Event{Time: now, RecvTS: now.UnixMilli(), Type: "system", Subtype: "init",
		Raw: []byte(`{"type":"system","subtype":"init","session_id":"` + id + `"}`)}))
	for _, r := range end {
		rec.Write(r)
	}
	name := fmt.Sprintf("cursor-wrap-%d-%s.jsonl", now.UnixMilli(), id)
	// Every record at the attempt's time: its start orders the runs.
	log := regexp.MustCompile(`"time":"[^"]+"`).ReplaceAll(b.Bytes(), []byte(`"time":"`+now.UTC().Format(time.RFC3339Nano)+`"`))
	if err := os.WriteFile(filepath.Join(dir, name), log, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSessionsCommandInProcess lists a log dir holding a session that
// answered, one that failed, one that hung, one whose wrapper was killed
// before its end and a direct run that exited 0 asking a question. (The
// sessions a running wrapper and a killed one leave: scripts/e2e.)
func TestSessionsCommandInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeLog(t, dir, 1, "s-ok", &sessionlog.AgentExited{Code: 0}, &sessionlog.Exit{End: sessionlog.End{Cause: "exited", Status: 0}, DurationMS: 1200})
	writeLog(t, dir, 2, "s-fail", &sessionlog.AgentExited{Code: 3}, &sessionlog.Exit{End: sessionlog.End{Cause: "exited", Status: 3}, DurationMS: 800})
	writeLog(t, dir, 3, "s-hang", &sessionlog.HangDetected{Reason: watchdog.Reason{Kind: watchdog.KindIdle}},
		&sessionlog.Exit{End: sessionlog.End{Cause: "hung", Status: 124}, DurationMS: 2500})
	writeLog(t, dir, 4, "s-kill")
	writeLog(t, dir, 5, "s-ask", &sessionlog.Exit{End: sessionlog.End{Cause: "exited", Status: 85, Kind: sessionlog.KindQuestion, Attempt: 1, Run: "s-ask"}})

	stdout, stderr, code := run("--log-dir", dir)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	want := []string{
		`START +TOOK +AGENT +OUTCOME +EXIT +USAGE +SESSION +PROMPT`,
		`waiting on a person +85 +not reported +s-ask +s-ask prompt`,
		`unfinished +- +not reported +s-kill +s-kill prompt`,
		`hung \(idle\) +124 +not reported +s-hang +s-hang prompt`,
		`failed \(status 3\) +3 +not reported +s-fail +s-fail prompt`,
		`ok +0 +not reported +s-ok +s-ok prompt`,
	}
	if code != 0 || stderr != "" || len(lines) != len(want) {
		t.Fatalf("sessions: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
	for i, w := range want {
		if i > 0 {
			w = `^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +[0-9.]+m?s +cursor +` + w + `$`
		}
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i, lines[i], w)
		}
	}

	stdout, _, code = run("--json", "--hung", "--log-dir", dir)
	var list []sessionlog.Session
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || code != 0 {
		t.Fatalf("--json --hung: exit %d, %v: %s", code, err, stdout)
	}
	if len(list) != 1 || list[0].ID != "s-hang" || list[0].Agent != "cursor" || list[0].Prompt != "s-hang prompt" ||
		list[0].Outcome != "hung (idle)" || *list[0].ExitStatus != 124 || !list[0].Hung {
		t.Errorf("--json --hung: %+v", list)
	}
	if stdout, _, _ := run("--limit", "2", "--log-dir", dir); strings.Count(stdout, "\n") != 3 {
		t.Errorf("--limit 2:\n%s", stdout)
	}
}

// TestSessionsUsage: a wrong limit or argument is a usage error; an empty
// log dir is said on stderr, with an empty list on stdout.
func TestSessionsUsage(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"--limit", "0"}, 2, "", "cursor-wrap: sessions: --limit 0: list at least 1\n"},
		{[]string{"--limt", "3"}, 2, "", "cursor-wrap: sessions: unknown flag --limt: did you mean --limit?\n"},
		{[]string{"--log-dir", empty, "extra"}, 2, "", "cursor-wrap: sessions: unexpected \"extra\"\n" + Command.Usage() + "\n"},
		{[]string{"--log-dir", empty}, 0, "", "cursor-wrap: no sessions in " + empty + "\n"},
		{[]string{"--log-dir", empty, "--json"}, 0, "[]\n", ""},
	} {
		stdout, stderr, code := run(tc.args...)
		if code != tc.code || stdout != tc.stdout || stderr != tc.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
}

// TestSessionsTellTheRun lists a run of two attempts (a hang, then a
// resumed answer) as one row, its attempts under it with --attempts and
// inside it in --json, its time from the first start and its usage the
// attempts' sum; --agent and --since pick runs.
func TestSessionsTellTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hung := &sessionlog.Exit{End: sessionlog.End{Cause: "hung", Status: 124, Kind: "idle", Attempt: 1, Run: "r-1"},
		Usage: &sessionlog.UsageRecord{InputTokens: 100, OutputTokens: 10}}
	ok := &sessionlog.Exit{End: sessionlog.End{Cause: "exited", Attempt: 2, Run: "r-1"},
		Usage: &sessionlog.UsageRecord{InputTokens: 50, OutputTokens: 5}}
	writeLog(t, dir, -60_000, "s-old", &sessionlog.Exit{End: sessionlog.End{Cause: "exited"}})
	writeAttempt(t, dir, 0, sessionlog.Command{Attempt: 1, Run: "r-1", Agent: "cursor"}, "s-1", "", hung)
	writeAttempt(t, dir, 10, sessionlog.Command{Attempt: 1, Run: "r-2", Agent: "claude"}, "s-2", "", &sessionlog.Exit{End: sessionlog.End{Cause: "exited"}})
	writeAttempt(t, dir, 20, sessionlog.Command{Attempt: 2, Run: "r-1", Agent: "cursor"}, "s-1", "the last attempt hung (idle); resuming session s-1", ok)

	stdout, stderr, code := run("--attempts", "--agent", "cursor", "--since", "30s", "--log-dir", dir)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	want := []string{
		`^START +TOOK`,
		` +cursor +ok after 2 attempts \(hung \(idle\)\) +0 +in 150 out 15 +s-1 +s-1 prompt$`,
		`^  attempt 1 +[0-9.]+m?s +- +hung \(idle\) +124 +in 100 out 10 +s-1 +-$`,
		`^  attempt 2 +[0-9.]+m?s +- +ok +0 +in 50 out 5 +s-1 +the last attempt hung \(idle\); resuming session s-1$`,
	}
	if code != 0 || stderr != "" || len(lines) != len(want) {
		t.Fatalf("sessions: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i, lines[i], w)
		}
	}

	stdout, _, _ = run("--json", "--log-dir", dir)
	var list []sessionlog.Session
	if err := json.Unmarshal([]byte(stdout), &list); err != nil || len(list) != 3 {
		t.Fatalf("--json: %v: %s", err, stdout)
	}
	r := list[1] // newest first, by the first attempt's start: r-2, r-1, s-old
	if list[0].Run != "r-2" || r.Run != "r-1" || list[2].ID != "s-old" || len(r.Attempts) != 2 || !r.Hung || r.Outcome != "ok" ||
		r.Usage == nil || r.Usage.InputTokens != 150 || r.Attempts[1].Restart == "" || r.LogPath != r.Attempts[1].LogPath ||
		r.DurationMS != 20 || r.Start != r.Attempts[0].Start {
		t.Errorf("--json: %+v", list)
	}
	if stdout, _, _ := run("--hung", "--limit", "1", "--log-dir", dir); !strings.Contains(stdout, "ok after 2 attempts") {
		t.Errorf("--hung lists the run in which an attempt hung:\n%s", stdout)
	}
	if stdout, _, _ := run("--limit", "1", "--log-dir", dir); !strings.Contains(stdout, "claude") || strings.Count(stdout, "\n") != 2 {
		t.Errorf("--limit 1:\n%s", stdout)
	}
	if _, stderr, code := run("--since", "yesterday", "--log-dir", dir); code != 2 || !strings.Contains(stderr, "--since yesterday: give a date") {
		t.Errorf("--since yesterday: exit %d, %s", code, stderr)
	}
}
