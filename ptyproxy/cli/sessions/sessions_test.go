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
	var b bytes.Buffer
	rec := sessionlog.NewRecorder(nil, sessionlog.SinkTo(&b))
	rec.Write(&sessionlog.Command{Attempt: 1, Run: id, Agent: "cursor", Path: "/bin/cursor-agent",
		Argv: []string{"--print", "--output-format", "stream-json", "-p", id + " prompt"}, Watch: "events"})
	rec.Write(&sessionlog.Start{Pid: 1 << 30, TickMS: 5000})
	now := time.Now()
	rec.Events(rec.AppendEvent(nil, sessionlog.Event{Time: now, RecvTS: now.UnixMilli(), Type: "system", Subtype: "init",
		Raw: []byte(`{"type":"system","subtype":"init","session_id":"` + id + `"}`)}))
	for _, r := range end {
		rec.Write(r)
	}
	name := fmt.Sprintf("cursor-wrap-%d-%s.jsonl", now.UnixMilli()+int64(n), id)
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o600); err != nil {
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
