package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"cursor-wrap/scripts/testenv"
)

// The tests in this file hold the drop-in promise: what a user types gets
// the answer it got without the wrapper, and what the wrapper says is
// plain, names what was wrong and how to fix it.

// TestAliasKeepsTheStatus types the most common calls in each shell, the
// agent answering in text, in json, and in stream-json with no result: each
// is watched (a log proves it), exits with the agent's own status and
// shows nothing of the wrapper, as without it.
func TestAliasKeepsTheStatus(t *testing.T) {
	t.Parallel()
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			rc := echoRC(sh)
			var program strings.Builder
			for _, call := range []string{`-p "hello"`, `-p --output-format json "hello"`, `-p --output-format stream-json "hello"`} {
				program.WriteString("cursor-agent " + call + "; " + rc + "\n")
			}
			out, stderr, logDir := inShell(t, sh, agentBin, []string{steps("line", "Hello! How can I help?")}, program.String())
			if want := strings.Repeat("Hello! How can I help?\nrc=0\n", 3); string(out) != want || len(stderr) != 0 {
				t.Errorf("stdout %q, want %q; stderr:\n%s", out, want, stderr)
			}
			if logs, _ := filepath.Glob(filepath.Join(logDir, "cursor-wrap-*.jsonl")); len(logs) != 3 {
				t.Errorf("%d logs, want 3: each call watched", len(logs))
			}
			// The agent's own failure passes through too.
			out, _, _ = inShell(t, sh, agentBin, []string{steps("line", "no", "exit", "3")}, `cursor-agent -p "hello"; `+rc)
			if string(out) != "no\nrc=3\n" {
				t.Errorf("a failing agent: %q", out)
			}
		})
	}
}

// TestDirectNoResult checks the one status the wrapper makes up: direct
// mode with stream-json, the stream cut short (exit 0, no result), is 1;
// direct mode with another format keeps the agent's 0.
func TestDirectNoResult(t *testing.T) {
	t.Parallel()
	if r := runWrapper(t, nil, nil, "--", "line", initLine); r.code != 1 || !bytes.Contains(r.stderr, []byte("exited 0 without a result")) {
		t.Errorf("stream-json, no result: exit %d; stderr %s", r.code, r.stderr)
	}
	r := runWrapper(t, []string{steps("line", "plain answer")}, nil, "--", "-p", "--output-format", "text", "hi")
	if r.code != 0 || string(r.stdout) != "plain answer\n" || !bytes.Contains(r.stderr, []byte("cursor-wrap: the agent exited 0 after ")) {
		t.Errorf("text: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestHangNextStep checks that a hang ends with how to go on: the
// headless command that resumes the session, as typed in the mode the run
// was started in (the wrapper, its flags and "--" in direct mode; the
// shell function in alias mode), which run as printed resumes the session
// watched, with the run's output format; and the command that shows the
// log: inspect --last when the log is where inspect looks, else its path.
func TestHangNextStep(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, nil, nil, "--idle-timeout", "2s", "--notify", "https://hooks.example/s3cret", "--", "line", initLine, "hang")
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*.jsonl"))
	if r.code != 124 || len(logs) != 1 {
		t.Fatalf("exit %d, logs %q", r.code, logs)
	}
	// The test's PATH has no cursor-wrap: the hint names the wrapper by the
	// path a user can type, as when the installer's PREFIX is not on PATH.
	// The webhook's URL is a secret: it is not repeated.
	resume := wrapperBin + " --agent-bin " + agentBin + " --log-dir " + r.logDir + " --idle-timeout 2s -- --resume s-1 -- continue"
	want := "cursor-wrap: resume with `" + resume + "`; see `" + wrapperBin + " inspect " + logs[0] + "`\n"
	if !bytes.HasSuffix(r.stderr, []byte(want)) {
		t.Fatalf("stderr ends %q, want %q", r.stderr, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	again := exec.CommandContext(ctx, "sh", "-c", resume)
	again.Env = append(testEnv(), steps("args", "resumed-answer"))
	out, err := again.Output()
	if err != nil || !resumedHeadless(out) {
		t.Errorf("the printed command: %v\nstdout %s", err, out)
	}

	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			rc := echoRC(sh)
			out, stderr, _ := inShell(t, sh, agentBin, []string{steps("line", initLine, "hang"), "CURSOR_WRAP_IDLE_TIMEOUT=500ms"},
				`cursor-agent -p --output-format stream-json "hello"; `+rc)
			resume := "cursor-agent -p --output-format stream-json --resume s-1 -- continue"
			want := "cursor-wrap: resume with `" + resume + "`; see `cursor-wrap inspect --last`\n"
			if !bytes.HasSuffix(out, []byte("rc=124\n")) || !bytes.HasSuffix(stderr, []byte(want)) {
				t.Fatalf("stdout %q\nstderr %s", out, stderr)
			}
			out, stderr, logDir := inShell(t, sh, agentBin, []string{steps("args", "resumed-answer")}, resume+"; "+rc)
			logs, _ := filepath.Glob(filepath.Join(logDir, "cursor-wrap-*.jsonl"))
			if !bytes.HasSuffix(out, []byte("rc=0\n")) || !resumedHeadless(out) || len(logs) != 1 {
				t.Errorf("the printed command: logs %q\nstdout %s\nstderr %s", logs, out, stderr)
			}
		})
	}
}

// resumedHeadless reports whether out is the fake agent's, run headless
// with stream-json to resume session s-1 with the restart prompt: its
// args step, then the answer it gives a resumed session.
func resumedHeadless(out []byte) bool {
	var argv struct{ Argv []string }
	line, rest, _ := bytes.Cut(out, []byte("\n"))
	if json.Unmarshal(line, &argv) != nil || len(argv.Argv) == 0 {
		return false
	}
	got := strings.Join(argv.Argv, " ")
	headless := slices.Contains(argv.Argv, "-p") || slices.Contains(argv.Argv, "--print")
	return headless && strings.Contains(got, "--output-format stream-json") &&
		strings.HasSuffix(got, "--resume s-1 -- continue") && bytes.Contains(rest, []byte(`"result":"resumed"`))
}

// TestBareWords checks that a first word that is not a command is an
// error, exit 2, with the agent never started, and that the commands a
// user may mistake for prompts run as commands.
func TestBareWords(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "started")
	agent := filepath.Join(t.TempDir(), "cursor-agent")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"CURSOR_WRAP_AGENT_BIN=" + agent, "CURSOR_WRAP_LOG_DIR=" + t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inpsect", "--last"}, `cursor-wrap: unknown command "inpsect" — did you mean inspect? A prompt goes after --` + "\n"},
		{[]string{"fix the test"}, `cursor-wrap: unknown command "fix the test": a prompt goes after --, as in cursor-wrap -- 'fix the test', or on stdin` + "\n"},
		{[]string{"--idle-timeout", "2m", "fix"}, `cursor-wrap: "fix" after the wrapper's flags: a prompt goes after --, as in cursor-wrap [flags] -- fix, or on stdin` + "\n"},
		{[]string{"--status", "inspect", "--last"}, `cursor-wrap: "inspect" is a command: it goes first, as in cursor-wrap inspect …` + "\n"},
	} {
		r := runRaw(t, env, tc.args...)
		if r.code != 2 || string(r.stderr) != tc.want || len(r.stdout) != 0 {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the agent was started")
	}
	for _, args := range [][]string{{"version"}, {"completion", "bash"}, {"help"}, {"help", "inspect"}, {"inspect", "--help"}} {
		if r := runRaw(t, env, args...); r.code != 0 || len(r.stdout) == 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %s", args, r.code, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a command started the agent")
	}
}

// TestVersion checks that version and --version print the version the
// build info holds, with the commit when the build has one.
func TestVersion(t *testing.T) {
	t.Parallel()
	a, b := runRaw(t, nil, "version"), runRaw(t, nil, "--version")
	if a.code != 0 || b.code != 0 || !bytes.Equal(a.stdout, b.stdout) || !bytes.HasPrefix(a.stdout, []byte("cursor-wrap ")) {
		t.Fatalf("version %d %q, --version %d %q", a.code, a.stdout, b.code, b.stdout)
	}
	info, err := exec.Command("go", "version", "-m", wrapperBin).Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := regexp.MustCompile(`(?m)^\s*build\s+vcs\.revision=([0-9a-f]+)$`).FindSubmatch(info)
	switch {
	case rev != nil && !bytes.Contains(a.stdout, append([]byte("commit "), rev[1][:12]...)):
		t.Errorf("version %q lacks the build's commit %s", a.stdout, rev[1])
	case rev == nil && !bytes.HasPrefix(a.stdout, []byte("cursor-wrap devel, go")):
		t.Errorf("version %q of a build with no commit", a.stdout)
	}
}

// TestVersionOfACheckout builds the wrapper from a git checkout of these
// sources, as a developer does, and checks its version names the commit,
// then says when the tree had changes. The sources are the files the
// build reads, as go list names them: that needs no .git here, and no git
// that trusts this checkout (as root, git refuses one another user owns).
func TestVersionOfACheckout(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.SkipOutsideCI(t, "no git: %v", err)
	}
	dir := t.TempDir()
	for _, name := range append(buildFiles(t), "go.mod", "go.sum") {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "x")
	rev := git("rev-parse", "HEAD")
	version := func() string {
		t.Helper()
		bin := filepath.Join(dir, "cw")
		cmd := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(bin)
		return string(out)
	}
	if v := version(); !strings.HasPrefix(v, "cursor-wrap devel, commit "+rev[:12]+" (") {
		t.Errorf("clean checkout: %q, want commit %s", v, rev[:12])
	}
	changed, err := os.OpenFile(filepath.Join(dir, "main.go"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changed.WriteString("// changed\n"); err != nil {
		t.Fatal(err)
	}
	if err := changed.Close(); err != nil {
		t.Fatal(err)
	}
	if v := version(); !strings.HasPrefix(v, "cursor-wrap devel, commit "+rev[:12]+" with uncommitted changes (") {
		t.Errorf("changed checkout: %q", v)
	}
}

// buildFiles lists the files, relative to the module's root, that building
// the wrapper reads from this module: the Go and embedded files of every
// package of the module it imports.
func buildFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json=Dir,GoFiles,EmbedFiles,Module", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			Dir                 string
			GoFiles, EmbedFiles []string
			Module              *struct{ Main bool }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list: %v", err)
		}
		if p.Module == nil || !p.Module.Main {
			continue // The standard library, or a dependency.
		}
		for _, f := range append(p.GoFiles, p.EmbedFiles...) {
			rel, err := filepath.Rel(root, filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, rel)
		}
	}
	if !slices.Contains(files, "main.go") {
		t.Fatalf("go list named no main.go among the build's files: %q", files)
	}
	return files
}

// TestForce checks that direct mode's --force is said in --help, is in
// the command the log records, and that --no-force leaves it out.
func TestForce(t *testing.T) {
	t.Parallel()
	help := strings.Join(strings.Fields(string(runRaw(t, nil, "--help").stdout)), " ")
	for _, want := range []string{"--force: the agent then runs commands and edits files without asking", "(--no-force leaves it out)", "--no-force do not pass --force in direct mode"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, help)
		}
	}
	argv := func(args ...string) []string {
		t.Helper()
		r := runWrapper(t, []string{steps("line", resultLine)}, nil, append(args, "--", "hi")...)
		for _, rec := range readLogs[map[string]any](t, r.logDir) {
			if rec["msg"] == "command" {
				var out []string
				for _, a := range rec["argv"].([]any) {
					out = append(out, a.(string))
				}
				return out
			}
		}
		t.Fatal("no command record")
		return nil
	}
	if got := strings.Join(argv(), " "); got != "--print --output-format stream-json --force --model auto hi" {
		t.Errorf("logged argv %q", got)
	}
	for _, off := range [][]string{{"--no-force"}, {"--force=false"}} {
		if got := strings.Join(argv(off...), " "); got != "--print --output-format stream-json --model auto hi" {
			t.Errorf("%s: logged argv %q", off, got)
		}
	}
}

// TestErrorsNameTheFix checks the wrapper's errors name what was wrong
// where the user wrote it, and the fix, with no package names. Those of
// the other commands are their packages' tests, in process.
func TestErrorsNameTheFix(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "idel_timeout = \"5s\"\n")
	for _, tc := range []struct {
		env  []string
		args []string
		code int
		want string
	}{
		{nil, []string{"--idle-timout", "5s"}, 125, "unknown flag --idle-timout: did you mean --idle-timeout?"},
		{nil, []string{"-p", "hi"}, 125, "unknown flag -p: the agent's flags go after --, as in cursor-wrap -- -p …"},
		{nil, []string{"--idle-timeout"}, 125, "--idle-timeout needs a value, as in --idle-timeout 90s"},
		{nil, []string{"--idle-timeout", "--", "fix"}, 125, "--idle-timeout needs a value, as in --idle-timeout 90s"},
		{nil, []string{"--log-level", "verbose"}, 125, `--log-level verbose: "verbose" is not debug, info, warn or error`},
		{nil, []string{"--log-level"}, 125, "--log-level needs a value, as in --log-level debug|info|warn|error"},
		{nil, []string{"--idle-timeout", "-1s"}, 125, "--idle-timeout -1s: "},
		{nil, []string{"--force=maybe"}, 125, `--force=maybe: "maybe" is not true or false`},
		{[]string{"CURSOR_WRAP_IDLE_TIMEOUT=5 minutes"}, nil, 125, `$CURSOR_WRAP_IDLE_TIMEOUT: "5 minutes" is not a duration like 90s or 5m`},
		{[]string{"CURSOR_WRAP_CONFIG=" + cfg}, nil, 125, cfg + `:1: unknown key "idel_timeout" (did you mean "idle_timeout"?)`},
		{nil, []string{"--agent", "aider", "--", "hi"}, 125, `unknown agent "aider"; known agents: cursor, claude, codex, gemini, opencode`},
	} {
		r := runRaw(t, tc.env, tc.args...)
		line := strings.TrimSpace(string(r.stderr))
		if r.code != tc.code || !strings.HasPrefix(line, "cursor-wrap: ") || !strings.Contains(line, tc.want) {
			t.Errorf("%q %q: exit %d, stderr %q; want %d and %q", tc.env, tc.args, r.code, line, tc.code, tc.want)
		}
		if strings.Contains(line, "config.toml") && !strings.Contains(tc.want, "config.toml") {
			t.Errorf("%q: blamed on the config file: %s", tc.args, line)
		}
	}
}

// packageNames are the internal names no message may show.
var packageNames = regexp.MustCompile(`\b(shellhook|sessionlog|ptyproxy|stream|watchdog|job|mcpserver): `)

// TestPlainMessages checks the messages a newcomer meets first: no agent
// installed (with Cursor's install command), and no agent where
// agent_bin says. (No logs yet, a log that is not there: inspect's tests.)
func TestPlainMessages(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	for _, tc := range []struct {
		env  []string
		args []string
		code int
		want string
	}{
		{[]string{"PATH=" + empty}, []string{"--", "hi"}, 127,
			"cursor-wrap: agent not found: no cursor-agent or agent on PATH; install it with `curl https://cursor.com/install -fsS | bash`, or set agent_bin to its path\n"},
		{[]string{"PATH=" + empty}, []string{"--agent", "claude", "--", "hi"}, 127,
			"cursor-wrap: agent not found: no claude on PATH; install it with `npm install -g @anthropic-ai/claude-code`, or set agent_bin to its path\n"},
		{nil, []string{"--agent-bin", filepath.Join(empty, "nope"), "--", "hi"}, 127,
			"cursor-wrap: agent not found: " + filepath.Join(empty, "nope") + " does not exist; set agent_bin (or --agent-bin, $CURSOR_WRAP_AGENT_BIN) to the agent's path\n"},
	} {
		r := runRaw(t, tc.env, tc.args...)
		if r.code != tc.code || string(r.stderr) != tc.want || packageNames.Match(r.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

// TestLogDirPlaces runs the wrapper with a throwaway HOME: logs go to
// ~/.local/state/cursor-wrap/logs, or $XDG_STATE_HOME's; to
// ~/.cursor-wrap/logs while that exists, and doctor then says how to move
// it.
func TestLogDirPlaces(t *testing.T) {
	t.Parallel()
	run := func(home string, env ...string) {
		t.Helper()
		cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--", "line", resultLine)
		cmd.Env = append(testEnv(), append([]string{"HOME=" + home, "XDG_STATE_HOME="}, env...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	logsIn := func(dir string) int {
		logs, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl"))
		return len(logs)
	}
	home := t.TempDir()
	run(home)
	if n := logsIn(filepath.Join(home, ".local/state/cursor-wrap/logs")); n != 1 {
		t.Errorf("%d logs in ~/.local/state/cursor-wrap/logs", n)
	}
	state := t.TempDir()
	run(home, "XDG_STATE_HOME="+state)
	if n := logsIn(filepath.Join(state, "cursor-wrap/logs")); n != 1 {
		t.Errorf("%d logs in $XDG_STATE_HOME/cursor-wrap/logs", n)
	}

	home = t.TempDir()
	old := filepath.Join(home, ".cursor-wrap/logs")
	os.MkdirAll(old, 0o700)
	run(home)
	if n := logsIn(old); n != 1 {
		t.Errorf("%d logs in the existing ~/.cursor-wrap/logs", n)
	}
	cmd := exec.Command(wrapperBin, "doctor", "--shell", "bash")
	cmd.Env = append(testEnv(), "HOME="+home, "XDG_STATE_HOME=")
	out, _ := cmd.CombinedOutput()
	want := "! session logs go to ~/.cursor-wrap/logs, where earlier versions wrote them, as long as it exists; the place for them is now ~/.local/state/cursor-wrap/logs\n" +
		`    move them: mkdir -p "$HOME/.local/state/cursor-wrap" && mv "$HOME/.cursor-wrap/logs" "$HOME/.local/state/cursor-wrap/logs"` + "\n"
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("doctor:\n%s", out)
	}
	// The command it gives works, and the logs are then found where it
	// moved them.
	move := strings.SplitN(want, "move them: ", 2)[1]
	if mv, err := exec.Command("bash", "-c", "HOME="+home+"; "+move).CombinedOutput(); err != nil {
		t.Fatalf("the move: %v\n%s", err, mv)
	}
	run(home)
	if n := logsIn(filepath.Join(home, ".local/state/cursor-wrap/logs")); n != 2 {
		t.Errorf("%d logs after the move, want 2", n)
	}
}

// TestInspectColor checks inspect marks long silences in bold on a
// terminal, and not with NO_COLOR set.
func TestInspectColor(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, nil, nil, "--", "line", initLine, "sleep", "300ms", "line", resultLine)
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs %q", logs)
	}
	screen := func(env ...string) string {
		t.Helper()
		ptm, pts, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptm.Close()
		cmd := exec.Command(wrapperBin, "inspect", "--gap", "200ms", logs[0])
		cmd.Env = append(testEnv(), env...)
		cmd.Stdout, cmd.Stderr = pts, pts
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pts.Close()
		var b bytes.Buffer
		b.ReadFrom(bufio.NewReader(ptm)) // EIO at the end
		cmd.Wait()
		return b.String()
	}
	if s := screen(); !strings.Contains(s, "\x1b[1m!\x1b[0m") {
		t.Errorf("no bold mark on a terminal:\n%q", s)
	}
	if s := screen("NO_COLOR=1"); strings.Contains(s, "\x1b[") || !strings.Contains(s, "! result/success") {
		t.Errorf("NO_COLOR=1:\n%q", s)
	}
}

// TestUnknownEnv checks that a misspelled variable is named, with the one
// meant, and the run goes on; the variables the wrapper sets for itself
// raise nothing.
func TestUnknownEnv(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{"CURSOR_WRAP_IDLE_TIMOUT=5s", "CURSOR_WRAP_DEPTH=1", "CURSOR_WRAP_DISABLE=0", steps("line", resultLine)}, nil)
	want := "cursor-wrap: warning: $CURSOR_WRAP_IDLE_TIMOUT is not a setting of cursor-wrap and does nothing: did you mean $CURSOR_WRAP_IDLE_TIMEOUT?\n"
	if r.code != 0 || !bytes.HasPrefix(r.stderr, []byte(want)) || bytes.Count(r.stderr, []byte("warning")) != 1 {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}
