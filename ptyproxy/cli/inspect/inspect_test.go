package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/scripts/testenv"
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

// logDir is a log dir holding the session logs of the timeline's golden
// files, each newer than the one before: a normal run, a hang, then
// another normal run. It returns the dir and the hang's path.
func logDir(t *testing.T) (dir, hang string) {
	t.Helper()
	dir = t.TempDir()
	for i, name := range []string{"normal", "hang", "usage"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "sessionlog", "timeline", "testdata", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d-%s.jsonl", 1795647177000+i, name))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if name == "hang" {
			hang = path
		}
	}
	return dir, hang
}

// TestInspectLogs shows a log as the timeline's golden file has it, the
// newest log with --last, the newest hang with --last-hang, and either as
// JSON.
func TestInspectLogs(t *testing.T) {
	t.Parallel()
	dir, hang := logDir(t)
	golden, err := os.ReadFile(filepath.Join("..", "..", "sessionlog", "timeline", "testdata", "hang.golden"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(golden), "testdata/hang.jsonl", hang, 1)
	for _, args := range [][]string{{"--gap", "500ms", hang}, {"--gap", "500ms", "--last-hang", "--log-dir", dir}} {
		stdout, stderr, code := run(args...)
		if code != 0 || stderr != "" || stdout != want {
			t.Errorf("%q: exit %d, stderr %q:\n%s\nwant\n%s", args, code, stderr, stdout, want)
		}
	}
	stdout, _, code := run("--last", "--json", "--log-dir", dir)
	var doc struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); code != 0 || err != nil || doc.SessionID != "3c1e9a70-5b2d-4f8e-9a16-2d7c4e8b1f03" {
		t.Errorf("--last --json: exit %d, %v, session %q:\n%.300s", code, err, doc.SessionID, stdout)
	}
	page := filepath.Join(t.TempDir(), "run.html")
	if _, stderr, code := run("--html", "-o", page, hang); code != 0 {
		t.Errorf("--html -o: exit %d: %s", code, stderr)
	} else if b, err := os.ReadFile(page); err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("--html -o wrote %.80q, %v", b, err)
	}
}

// TestInspectErrorsNameTheFix checks inspect's errors name what was wrong
// and the fix, each on one line that starts with cursor-wrap:, with the
// status of a usage error (2) or of a log that does not read (1).
func TestInspectErrorsNameTheFix(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	notALog := filepath.Join(empty, "config.toml")
	if err := os.WriteFile(notALog, []byte("idel_timeout = \"5s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--lats"}, 2, "inspect: unknown flag --lats: did you mean --last?"},
		{[]string{"--gap", "5"}, 2, `inspect: --gap 5: "5" is not a duration like 90s or 5m`},
		{nil, 2, "inspect: which run? Give a log's FILE or a SESSION id, or --last for the newest"},
		{[]string{notALog}, 1, notALog + ` is not a cursor-wrap session log: not a log record`},
		{[]string{"--json", "--html", notALog}, 2, "inspect: --json or --html, not both"},
		{[]string{"-o", "page.html", notALog}, 2, "inspect: -o names the file --html writes; give --html too"},
		{[]string{"--html", "-o"}, 2, "inspect: -o needs a value, as in -o FILE"},
		{[]string{"--html", notALog}, 1, notALog + ` is not a cursor-wrap session log: not a log record`},
		{[]string{"--last", "--last-hang"}, 2, "inspect: --last or --last-hang, not both"},
		{[]string{"--last", notALog}, 2, "inspect: --last or a FILE, not both"},
		{[]string{notALog, notALog}, 2, "inspect: one FILE at a time, not 2"},
		{[]string{"--last", "--log-dir", empty}, 1, "cursor-wrap: no session logs in " + empty + " yet: a run through cursor-wrap writes one\n"},
		{[]string{"--last-hang", "--log-dir", empty}, 1, "cursor-wrap: no session in " + empty + " hung\n"},
		{[]string{filepath.Join(empty, "x.jsonl")}, 1, "cursor-wrap: cannot read " + filepath.Join(empty, "x.jsonl") + ": no such file or directory\n"},
	} {
		stdout, stderr, code := run(tc.args...)
		if code != tc.code || stdout != "" || !strings.HasPrefix(stderr, "cursor-wrap: ") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
}

// TestInspectBySessionID opens a run by the session id sessions prints, or
// a prefix of it, as by its log; an id that names no run, or more than
// one, says so and names the fix.
func TestInspectBySessionID(t *testing.T) {
	t.Parallel()
	dir, hang := logDir(t)
	byPath, _, _ := run("--gap", "500ms", hang)
	for _, id := range []string{"hang-0001", "hang-"} {
		stdout, stderr, code := run("--gap", "500ms", "--log-dir", dir, id)
		if code != 0 || stderr != "" || stdout != byPath {
			t.Errorf("%s: exit %d, stderr %q:\n%s", id, code, stderr, stdout)
		}
	}
	page := filepath.Join(t.TempDir(), "run.html")
	if _, stderr, code := run("--html", "-o", page, "--log-dir", dir, "3c1e"); code != 0 {
		t.Errorf("--html 3c1e: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run("--log-dir", dir, "zz"); code != 1 || !strings.Contains(stderr, "cannot read zz: no such file, and no session in "+dir+" has an id that starts so (`cursor-wrap sessions` lists them)") {
		t.Errorf("zz: exit %d, %s", code, stderr)
	}
	// The same session in two runs: the prefix is ambiguous.
	data, err := os.ReadFile(hang)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cursor-wrap-1795647178000-again.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := run("--log-dir", dir, "hang")
	if code != 2 || !strings.HasPrefix(stderr, "cursor-wrap: inspect: hang starts the id of 2 sessions; give more of it, or a log's path:\n  hang-0001  ") ||
		strings.Count(stderr, "\n  hang-0001  ") != 2 {
		t.Errorf("an ambiguous id: exit %d, %s", code, stderr)
	}
}

// TestInspectFileWinsOverID: a file in the working directory named as a
// session id is the log inspect reads.
func TestInspectFileWinsOverID(t *testing.T) {
	dir, _ := logDir(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "sessionlog", "timeline", "testdata", "normal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("hang-0001", data, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run("--log-dir", dir, "hang-0001")
	if code != 0 || !strings.Contains(stdout, "\nsession  6f1d2c3a-8b4e-4f7a-9c2d-5e8b1a0f3c47") {
		t.Errorf("exit %d, stderr %q:\n%.200s", code, stderr, stdout)
	}
}
