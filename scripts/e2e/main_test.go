package e2e

import (
	"cursor-wrap/scripts/testenv"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The tests run the built wrapper with the fake agent as its agent, as a
// user would.
var wrapperBin, agentBin string

func TestMain(m *testing.M) {
	// The tests name the module's files from its root (stream/testdata/…,
	// docs/…), and go list and go build run there.
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err == nil {
		err = os.Chdir(filepath.Dir(strings.TrimSpace(string(gomod))))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "to the module's root:", err)
		os.Exit(1)
	}
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "cursor-wrap-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wrapperBin = filepath.Join(dir, "cursor-wrap")
	agentBin = filepath.Join(dir, "fakeagent")
	// cursor-wrap mcp runs cursor-wrap-mcp from beside the wrapper.
	for bin, pkg := range map[string]string{wrapperBin: ".", agentBin: "./scripts/fakeagent",
		filepath.Join(dir, "cursor-wrap-mcp"): "./mcpserver/cmd/cursor-wrap-mcp"} {
		args := []string{"build", "-o", bin}
		if raceEnabled {
			args = append(args, "-race")
		}
		if out, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.RemoveAll(home)
	os.Exit(code)
}

// result is one run of the wrapper.
type result struct {
	stdout, stderr []byte
	code           int
	took           time.Duration
	cpu            time.Duration // user and system: the wrapper's and the children it reaped
	logDir         string
}

// runWrapper runs the wrapper with args, the fake agent as its agent and a log dir
// of its own; env adds to the environment.
func runWrapper(t *testing.T, env []string, stdin []byte, args ...string) result {
	t.Helper()
	return wrapperRun(t, func(cmd *exec.Cmd) {
		cmd.Env = append(cmd.Env, env...)
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
	}, args...)
}

// wrapperRun runs the wrapper like runWrapper, with the command adjusted
// by adjust before it starts (its stdout, stderr, environment).
func wrapperRun(t *testing.T, adjust func(*exec.Cmd), args ...string) result {
	t.Helper()
	return wrapperStart(t, adjust, args...)()
}

// wrapperStart starts the wrapper as wrapperRun runs it and returns the
// wait for its result, which the test's own goroutine calls: runs that
// mostly wait (on a model that thinks) go on side by side, beyond the
// two at a time that -parallel allows on two cores.
func wrapperStart(t *testing.T, adjust func(*exec.Cmd), args ...string) func() result {
	t.Helper()
	logDir := t.TempDir()
	wait := startWrapper(t, adjust, append([]string{"--agent-bin", agentBin, "--log-dir", logDir}, args...)...)
	return func() result {
		t.Helper()
		r := wait()
		r.logDir = logDir
		return r
	}
}

// runRaw runs the wrapper with exactly args, env added to the test
// environment.
func runRaw(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return execWrapper(t, func(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, env...) }, args...)
}

// execWrapper runs the wrapper with exactly args in the test environment,
// adjust (when not nil) changing the command before it starts: what it
// printed, its exit status and how long it took.
func execWrapper(t testing.TB, adjust func(*exec.Cmd), args ...string) result {
	t.Helper()
	return startWrapper(t, adjust, args...)()
}

// startWrapper starts the wrapper as execWrapper runs it and returns the
// wait for its result, for the test's goroutine to call.
func startWrapper(t testing.TB, adjust func(*exec.Cmd), args ...string) func() result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	cmd := exec.CommandContext(ctx, wrapperBin, args...)
	cmd.Env = testEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if adjust != nil {
		adjust(cmd)
	}
	start := time.Now()
	err := cmd.Start()
	return func() result {
		t.Helper()
		defer cancel()
		if err == nil {
			err = cmd.Wait()
		}
		r := result{stdout: stdout.Bytes(), stderr: stderr.Bytes(), took: time.Since(start)}
		if cmd.ProcessState != nil {
			r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			r.code = ee.ExitCode()
		case err != nil:
			t.Fatalf("running the wrapper: %v", err)
		}
		return r
	}
}

// testEnv is the environment without the wrapper's own variables, so a
// developer's settings cannot change the tests.
func testEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CURSOR_WRAP_") {
			env = append(env, kv)
		}
	}
	return append(env, "GORACE=atexit_sleep_ms=0", "CURSOR_WRAP_CONFIG=/nonexistent/config.toml")
}

// steps passes fake-agent steps through the environment, leaving the
// agent's command line free of positionals.
func steps(s ...string) string {
	b, _ := json.Marshal(s)
	return "FAKEAGENT_STEPS=" + string(b)
}

const (
	initLine   = `{"type":"system","subtype":"init","session_id":"s-1"}`
	resultLine = `{"type":"result","subtype":"success","session_id":"s-1"}`
)

func TestExitStatuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "cursor-agent")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"result then exit 0", []string{"--", "line", resultLine}, 0},
		{"result then exit 3", []string{"--", "line", resultLine, "exit", "3"}, 3},
		{"no result, exit 0", []string{"--", "line", initLine}, 1},
		{"no result, exit 5", []string{"--", "exit", "5"}, 5},
		{"no result, killed by SIGHUP", []string{"--", "kill", "HUP"}, 128 + 1},
		{"hang", []string{"--idle-timeout", "500ms", "--", "line", initLine, "hang"}, 124},
		{"result, no exit", []string{"--exit-grace", "300ms", "--", "line", resultLine, "hang"}, 0},
		{"agent not found", []string{"--agent-bin", filepath.Join(dir, "missing")}, 127},
		{"agent not executable", []string{"--agent-bin", notExec}, 126},
		{"unknown flag", []string{"--idle-timout", "5s"}, 125},
		{"bad duration", []string{"--idle-timeout", "5 minutes"}, 125},
		{"negative duration", []string{"--kill-grace=-1s"}, 125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runWrapper(t, nil, nil, tc.args...)
			if r.code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.want, r.stderr)
			}
			if tc.want >= 125 && tc.want <= 127 && !bytes.HasPrefix(r.stderr, []byte("cursor-wrap: ")) {
				t.Errorf("no clear error line: %q", r.stderr)
			}
		})
	}
}

// TestPassThrough checks stdout byte for byte (a noisy transcript with a
// 222 KB line and a non-JSON line), stderr verbatim, and what direct mode
// adds to the agent's args.
func TestPassThrough(t *testing.T) {
	t.Parallel()
	transcript := "stream/testdata/noisy.jsonl"
	want, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(transcript)
	r := runWrapper(t, nil, nil, "--", "err", "agent says\x1b[0m on stderr", "replay", abs, "1000000")
	if !bytes.Equal(r.stdout, want) {
		t.Fatalf("stdout differs: %d bytes, want %d", len(r.stdout), len(want))
	}
	// A line of the wrapper's own (the transcript's quota error, seen on
	// stdout) may come before or after it: they travel different pipes.
	if !slices.Contains(strings.Split(string(r.stderr), "\n"), "agent says\x1b[0m on stderr") {
		t.Errorf("agent stderr not passed through as a line of its own: %q", r.stderr)
	}
	if r.code != 0 {
		t.Errorf("exit %d", r.code)
	}

	r = runWrapper(t, []string{steps("args")}, nil, "--model", "gpt-5", "--", "-p", "hello")
	var got struct{ Argv []string }
	json.Unmarshal(r.stdout, &got)
	want2 := []string{"--output-format", "stream-json", "--force", "--model", "gpt-5", "-p", "hello"}
	if fmt.Sprint(got.Argv) != fmt.Sprint(want2) {
		t.Errorf("agent argv %q, want %q", got.Argv, want2)
	}
}

// TestStdinPrompt checks that a prompt piped to the wrapper reaches the
// agent and its stdin is then closed.
func TestStdinPrompt(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("stdin", "line", resultLine)}, []byte("say hi\n"))
	if !bytes.Contains(r.stdout, []byte(`"bytes":7`)) || r.code != 0 {
		t.Errorf("agent read %q, exit %d", r.stdout, r.code)
	}
}

// TestSignals sends each signal to the wrapper while the agent runs: the
// agent's group is signalled, and the wrapper exits 128+n once it is gone.
func TestSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", t.TempDir(), "--", "setsid-child", "line", "ready", "hang")
			cmd.Env = testEnv()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			var child int
			for sc.Scan() {
				var c struct{ Pid int }
				if json.Unmarshal(sc.Bytes(), &c) == nil && c.Pid > 0 {
					child = c.Pid
				}
				if sc.Text() == "ready" {
					break
				}
			}
			cmd.Process.Signal(sig)
			go sc.Scan()
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Errorf("wrapper ended with %v, want exit %d", err, 128+int(sig))
			}
			// The signal by the name a user knows, not Go's ("interrupt").
			name := unix.SignalName(sig)
			for _, want := range []string{"got " + name + "; passing it to the agent", "was interrupted by " + name + " after"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q: %s", want, stderr.Bytes())
				}
			}
			if child == 0 {
				t.Fatal("no child pid")
			}
			if alive(child) {
				t.Errorf("the agent's setsid child %d survived", child)
			}
		})
	}
}

// TestClosedStdout checks `cursor-wrap … | head -c 1`: the wrapper notices
// the closed pipe, stops the agent, exits 141 without a crash, and the
// agent never ran with SIGPIPE ignored.
func TestClosedStdout(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("bash", "-c", `"$0" --agent-bin "$1" --log-dir "$2" -- tty line x sleep 200ms line y hang | head -c 1 >/dev/null; echo "${PIPESTATUS[0]}"`, wrapperBin, agentBin, t.TempDir())
	cmd.Env = testEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "141" {
		t.Errorf("wrapper exit %s, want 141; stderr %q", got, stderr.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	if bytes.Contains(stderr.Bytes(), []byte("panic")) {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// TestRestart checks --restarts: the first attempt hangs mid-line, the
// second resumes the session with the restart prompt and finishes; stdout
// stays valid JSONL and each attempt has its own log.
func TestRestart(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "hung-once")
	r := runWrapper(t, []string{steps("args", "line", initLine, "raw", `{"type":"assistant","mess`, "hang-once", marker, "line", `age":{}}`, "line", resultLine)}, nil,
		"--idle-timeout", "2s", "--restarts", "2", "--restart-prompt", "go on", "--", "-p", "the prompt")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(string(r.stdout), "\n"), "\n")
	if len(lines) != 7 || lines[2] != `{"type":"assistant","mess` || lines[5] != `{"type":"assistant","message":{}}` {
		t.Fatalf("stdout lines: %q", lines)
	}
	var second struct{ Argv []string }
	json.Unmarshal([]byte(lines[3]), &second)
	if got := strings.Join(second.Argv, " "); !strings.HasSuffix(got, "-p --resume s-1 -- go on") {
		t.Errorf("second attempt argv %q", got)
	}
	if !bytes.Contains(r.stderr, []byte("restarting (attempt 2): the last attempt hung (idle); resuming session s-1")) {
		t.Errorf("stderr does not say why: %s", r.stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*-s-1*.jsonl"))
	if len(logs) != 2 {
		t.Errorf("logs %q, want one per attempt", logs)
	}
}

// TestTerminalSize runs the wrapper on a terminal: the agent's PTY gets the
// terminal's size, follows it when the terminal is resized (SIGWINCH), and
// the agent does not inherit an ignored SIGPIPE from the wrapper.
func TestTerminalSize(t *testing.T) {
	t.Parallel()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 33, Cols: 99}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", t.TempDir(), "--", "tty", "sleep", "1s", "tty")
	cmd.Env = testEnv()
	cmd.Stdout, cmd.Stderr = pts, pts
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	var reports []map[string]any
	sc := bufio.NewScanner(ptm)
	for sc.Scan() && len(reports) < 2 {
		var m map[string]any
		if json.Unmarshal(bytes.TrimRight(sc.Bytes(), "\r"), &m) != nil || m["type"] != "tty" {
			continue
		}
		reports = append(reports, m)
		if len(reports) == 1 {
			pty.Setsize(ptm, &pty.Winsize{Rows: 40, Cols: 132})
			cmd.Process.Signal(syscall.SIGWINCH)
		}
	}
	cmd.Wait()
	if len(reports) != 2 {
		t.Fatalf("tty reports: %v", reports)
	}
	if reports[0]["rows"] != 33.0 || reports[0]["cols"] != 99.0 {
		t.Errorf("first size %vx%v, want 33x99", reports[0]["rows"], reports[0]["cols"])
	}
	if reports[1]["rows"] != 40.0 || reports[1]["cols"] != 132.0 {
		t.Errorf("after SIGWINCH %vx%v, want 40x132", reports[1]["rows"], reports[1]["cols"])
	}
	if reports[0]["sig_ign"] != "0000000000000000" {
		t.Errorf("agent ignores signals %v", reports[0]["sig_ign"])
	}
}

// logRecord is one record of a session log.
type logRecord struct {
	Time      time.Time
	Msg       string
	Type      string
	Raw       string
	RawBase64 []byte `json:"raw_base64"`
	Reason    struct {
		Kind          string
		IdleSilenceMS int64 `json:"idle_silence_ms"`
		ElapsedMS     int64 `json:"elapsed_ms"`
	}
	InMS   int64 `json:"in_ms"`
	Signal string
	// notify_sent, notify_failed
	Event, Target, Error string
	Status               int
}

// readLogs returns the records of every session log in dir, in order,
// decoded as T (a logRecord, or a map for every field).
func readLogs[T any](t *testing.T, dir string) []T {
	t.Helper()
	// A running wrapper renames its log when the session names itself:
	// a file listed may be gone by the time it is read, under its new name.
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl"))
		recs, renamed := []T(nil), false
		for _, f := range files {
			data, err := os.ReadFile(f)
			if errors.Is(err, os.ErrNotExist) {
				renamed = true
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for line := range bytes.Lines(data) {
				var r T
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatalf("%s: bad record %q: %v", f, line, err)
				}
				recs = append(recs, r)
			}
		}
		if !renamed {
			return recs
		}
	}
}

func find(recs []logRecord, msg string) (logRecord, bool) {
	for _, r := range recs {
		if r.Msg == msg {
			return r, true
		}
	}
	return logRecord{}, false
}

// TestDetectionLatency runs each hang rule through the binary with a 5 s
// tick and measures, from the session log, how late the hang was declared
// after its threshold: the watchdog's deadline is timed exactly.
func TestDetectionLatency(t *testing.T) {
	t.Parallel()
	started := `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"sleep 60","timeout":1500}}}}`
	var flowing []string
	for range 40 {
		flowing = append(flowing, "line", `{"type":"thinking","subtype":"delta"}`, "sleep", "100ms")
	}
	for _, tc := range []struct {
		name      string
		args      []string
		kind      string
		threshold time.Duration
		from      string // "event": the last event; "start": the attempt's start
	}{
		{"idle", []string{"--idle-timeout", "1s", "--", "line", initLine, "hang"}, "idle", time.Second, "event"},
		{"tool deadline", []string{"--idle-timeout", "1s", "--tool-grace", "0s", "--", "line", started, "hang"}, "tool", 1500 * time.Millisecond, "event"},
		{"hard deadline while events flow", append([]string{"--hard-timeout", "1500ms", "--"}, flowing...), "deadline", 1500 * time.Millisecond, "start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runWrapper(t, nil, nil, append([]string{"--tick-interval", "5s"}, tc.args...)...)
			if r.code != 124 {
				t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
			}
			recs := readLogs[logRecord](t, r.logDir)
			hang, ok := find(recs, "hang_detected")
			if !ok || hang.Reason.Kind != tc.kind {
				t.Fatalf("hang record %+v", hang)
			}
			// Measured by the watchdog's own clock, as the hang record says
			// it: the log's times are the wall clock, which can step.
			measured := hang.Reason.IdleSilenceMS
			if tc.from == "start" {
				measured = hang.Reason.ElapsedMS
			}
			late := time.Duration(measured)*time.Millisecond - tc.threshold
			t.Logf("%s: declared %v after the threshold", tc.name, late)
			// Found by the 5s tick instead of the deadline's own timer, the
			// hang would be 3.5s late or more. Past the timer, lateness is
			// the scheduler's: 1-3ms here when idle, hundreds with the
			// machine oversubscribed.
			if late < 0 || late > time.Second {
				t.Errorf("declared %v after the threshold, want at its timer", late)
			}
			// The fake agent dies of the SIGTERM: no SIGKILL after the grace.
			var signals []string
			for _, rec := range recs {
				if rec.Msg == "kill" {
					signals = append(signals, rec.Signal)
				}
			}
			exited, _ := find(recs, "agent_exited")
			if len(signals) == 0 || signals[0] != "SIGCONT" || slices.Contains(signals, "SIGKILL") || exited.Time.Before(hang.Time) {
				t.Errorf("signals %v, exit %v after the hang", signals, exited.Time.Sub(hang.Time))
			}
		})
	}
}

// TestWarning checks the one warning, warn_before ahead of the kill, in the
// log and on stderr.
func TestWarning(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, nil, nil, "--idle-timeout", "1500ms", "--warn-before", "1s", "--", "line", initLine, "hang")
	if r.code != 124 {
		t.Fatalf("exit %d", r.code)
	}
	recs := readLogs[logRecord](t, r.logDir)
	var warnings []logRecord
	for _, rec := range recs {
		if rec.Msg == "warning" {
			warnings = append(warnings, rec)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("%d warnings, want 1", len(warnings))
	}
	// By the watchdog's own clock: due in warn_before at the latest (a
	// starved timer makes a warning later, never earlier).
	if in := warnings[0].InMS; in <= 0 || in > 1000 {
		t.Errorf("warned %dms ahead of the hang, want at most 1s", in)
	}
	// The silence and the time left add up to the idle timeout.
	m := regexp.MustCompile(`cursor-wrap: warning: no output for (\d+)ms; the agent will be stopped in (\d+)ms unless it speaks`).FindSubmatch(r.stderr)
	if one := regexp.MustCompile(`stopped in 1s unless`).Match(r.stderr); m == nil && !one {
		t.Fatalf("stderr: %s", r.stderr)
	} else if m != nil {
		silence, left := atoi(m[1]), atoi(m[2])
		if sum := silence + left; sum < 1498 || sum > 1502 {
			t.Errorf("silence %dms + %dms left = %dms, want 1500ms: %s", silence, left, sum, r.stderr)
		}
	}
}

// TestSessionLog checks the log of a realistic session: a record for every
// line with the raw text equal to what went to stdout, the file renamed to
// the session id, and the summary line on stderr.
func TestSessionLog(t *testing.T) {
	t.Parallel()
	abs, _ := filepath.Abs("stream/testdata/newline-callid.jsonl")
	r := runWrapper(t, nil, nil, "--", "replay", abs, "1000", "line", "caf\xe9 \xff not UTF-8", "raw", "\x1b[?25h")
	recs := readLogs[logRecord](t, r.logDir)
	var raws []string
	for _, rec := range recs {
		if rec.Msg == "event" {
			raws = append(raws, rec.Raw+string(rec.RawBase64))
		}
	}
	if got := strings.Join(raws, "\n"); got != string(r.stdout) {
		t.Errorf("log raw lines differ from stdout:\n%q\n%q", got, r.stdout)
	}
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*-2d8f4a61-9e0b-4c37-b5a2-7f1e6d3c9b08.jsonl"))
	if len(logs) != 1 {
		t.Errorf("log not named after the session: %v", logs)
	}
	if !bytes.Contains(r.stderr, []byte("cursor-wrap: session 2d8f4a61-9e0b-4c37-b5a2-7f1e6d3c9b08 finished (exit 0) after")) ||
		!bytes.Contains(r.stderr, []byte("5 tool calls")) {
		t.Errorf("summary line: %s", r.stderr)
	}
}

// TestRedactionEndToEnd puts a secret in each place it can come from and
// checks none reaches the log or the console.
func TestRedactionEndToEnd(t *testing.T) {
	t.Parallel()
	secrets := []string{"key_live_argument_1", "sk-proj-from-the-env-0123456789", "bearer-token-in-event-42", "sk-ant-in-a-stderr-line-98765"}
	r := runWrapper(t, []string{"OPENAI_API_KEY=" + secrets[1], steps("line", `{"type":"assistant","text":"curl -H 'Authorization: Bearer `+secrets[2]+`'"}`,
		"err", "leaked "+secrets[3], "line", resultLine)}, nil,
		"--log-level", "debug", "--", "--api-key", secrets[0])
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "*.jsonl"))
	all := r.stderr
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		all = append(all, data...)
	}
	// The agent's own stderr passes through as it is; what the wrapper
	// writes (the console and the log) is redacted.
	all = bytes.ReplaceAll(all, []byte("leaked "+secrets[3]+"\n"), nil)
	for _, s := range secrets {
		if bytes.Contains(all, []byte(s)) {
			t.Errorf("secret %s leaked", s)
		}
	}
	if !bytes.Contains(all, []byte(`"--api-key","[REDACTED]"`)) || !bytes.Contains(all, []byte(`"OPENAI_API_KEY"`)) {
		t.Errorf("redacted argv/env not logged")
	}
}

// TestUnwritableLogDir checks that a log dir that cannot be created (a file
// is in the way) costs one stderr line and nothing else.
func TestUnwritableLogDir(t *testing.T) {
	t.Parallel()
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	abs, _ := filepath.Abs("stream/testdata/normal.jsonl")
	want, _ := os.ReadFile(abs)
	r := runWrapper(t, nil, nil, "--log-dir", filepath.Join(blocker, "logs"), "--", "replay", abs, "1000")
	if !bytes.Equal(r.stdout, want) || r.code != 0 {
		t.Errorf("stdout %d bytes (want %d), exit %d", len(r.stdout), len(want), r.code)
	}
	if n := bytes.Count(r.stderr, []byte("session log disabled")); n != 1 {
		t.Errorf("%d log failure lines: %s", n, r.stderr)
	}
}

// TestHangRecordAndHook checks the hang_detected reason and the on_hang
// command: it gets the record on stdin and the log, session and exit in its
// environment, and its failure does not change the exit status.
func TestHangRecordAndHook(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "hook")
	started := `{"type":"tool_call","subtype":"started","call_id":"call_1\nfc_1","tool_call":{"shellToolCall":{"args":{"command":"make integration","timeout":500}}}}`
	hook := `cat > "$OUT.json"; env | grep ^CURSOR_WRAP_ | sort > "$OUT.env"; exit 7`
	r := runWrapper(t, []string{"OUT=" + out}, nil, "--idle-timeout", "800ms", "--tool-grace", "0s", "--on-hang", hook, "--", "line", initLine, "line", started, "hang")
	if r.code != 124 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rec struct {
		SessionID string `json:"session_id"`
		Reason    struct {
			Kind          string
			OpenCallCount int `json:"open_call_count"`
			OpenCalls     []struct {
				CallID    string `json:"call_id"`
				ElapsedMS int64  `json:"elapsed_ms"`
				TimeoutMS int64  `json:"timeout_ms"`
			} `json:"open_calls"`
			IdleSilenceMS int64  `json:"idle_silence_ms"`
			LastEventType string `json:"last_event_type"`
		}
	}
	data, _ := os.ReadFile(out + ".json")
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("hook stdin %q: %v", data, err)
	}
	c := rec.Reason.OpenCalls
	if rec.SessionID != "s-1" || rec.Reason.Kind != "tool" || rec.Reason.OpenCallCount != 1 || len(c) != 1 ||
		c[0].CallID != "call_1\nfc_1" || c[0].TimeoutMS != 500 || c[0].ElapsedMS < 800 || rec.Reason.IdleSilenceMS < 800 ||
		rec.Reason.LastEventType != "tool_call/started" {
		t.Errorf("hang record %+v", rec)
	}
	env, _ := os.ReadFile(out + ".env")
	if !bytes.Contains(env, []byte("CURSOR_WRAP_EXIT=124\n")) || !bytes.Contains(env, []byte("CURSOR_WRAP_SESSION_ID=s-1\n")) || !bytes.Contains(env, []byte("CURSOR_WRAP_LOG="+r.logDir)) {
		t.Errorf("hook env:\n%s", env)
	}
	if !bytes.Contains(r.stderr, []byte("on_hang command failed")) {
		t.Errorf("hook failure not reported: %s", r.stderr)
	}
}

// TestStatusLine runs the wrapper with --status, its stderr on a terminal:
// the status line is drawn, then erased before the summary and at exit. With
// stderr a pipe it never appears.
func TestStatusLine(t *testing.T) {
	t.Parallel()
	started := `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"npm test","timeout":60000}}}}`
	s := statusScreen(t, "line", started, "sleep", "1700ms", "line", resultLine)
	if !regexp.MustCompile(`running shellToolCall: npm test \(1(\.\d)?s of 1m30s\)`).MatchString(s) || !strings.Contains(s, "\r\x1b[K") {
		t.Errorf("no status line drawn:\n%q", s)
	}
	summary := strings.Index(s, "cursor-wrap: session")
	if summary < 0 || strings.LastIndex(s, "\r\x1b[K") < strings.LastIndex(s, "| silent") {
		t.Errorf("status not erased at the end:\n%q", s)
	}
	// Silent after its text, the agent is no longer "writing".
	writing := statusScreen(t, "line", initLine, "line", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s-1"}`, "sleep", "1700ms", "line", resultLine)
	// "silent 1.2s", not "silent 118ms": the first line can come early.
	if regexp.MustCompile(`\| writing \| silent 1(\.\d)?s`).MatchString(writing) || !strings.Contains(writing, "| was writing | silent 1") {
		t.Errorf("a silent agent's status line after its text:\n%q", writing)
	}
	r := runWrapper(t, nil, nil, "--status", "--", "line", started, "sleep", "600ms", "line", resultLine)
	if bytes.Contains(r.stderr, []byte("\x1b[K")) || bytes.Contains(r.stderr, []byte("running shellToolCall")) {
		t.Errorf("status line drawn on a pipe: %q", r.stderr)
	}
}

// statusScreen runs the wrapper with --status and the fake agent's steps,
// its stderr on a terminal, and returns what the terminal got.
func statusScreen(t *testing.T, steps ...string) string {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	pty.Setsize(ptm, &pty.Winsize{Rows: 24, Cols: 200})
	cmd := exec.Command(wrapperBin, append([]string{"--agent-bin", agentBin, "--log-dir", t.TempDir(), "--status", "--"}, steps...)...)
	cmd.Env = testEnv()
	cmd.Stderr = pts
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() { screen.ReadFrom(ptm); close(done) }()
	cmd.Wait()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("no EOF from the terminal")
	}
	return screen.String()
}

// save replaces a config file the way atomic writers do.
func save(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestConfigReload edits the config of a running wrapper: garbage is
// refused and the last good values kept; a flag-pinned key is not changed;
// cutting idle_timeout from 30s to 1s after more than 1s of silence
// declares the hang at the reload, not at the next timer.
func TestConfigReload(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	// The warning, due after 1s of silence, is the wrapper saying that the
	// silence is past the limit the reload will set.
	save(t, cfg, "idle_timeout = \"30s\"\nwarn_before = \"29s\"\nkill_grace = \"2s\"\n")
	logDir := t.TempDir()
	cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--config", cfg, "--kill-grace", "1s", "--", "line", initLine, "line", "ready", "hang")
	cmd.Env = testEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "ready" {
	}
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if recs := readLogs[logRecord](t, logDir); len(recs) > 0 {
				if _, ok := find(recs, what); ok {
					return
				}
			}
		}
		t.Fatalf("no %s record", what)
	}
	save(t, cfg, "idle_timeout = \"1s\"\nwarn_before = \"29s\"\nkill_grace = ")
	waitFor("config_error")
	waitFor("warning")
	save(t, cfg, "idle_timeout = \"1s\"\nwarn_before = \"29s\"\nkill_grace = \"9s\"\n")
	go sc.Scan()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 124 {
		t.Fatalf("exit %v; stderr %s", err, stderr.String())
	}
	recs := readLogs[logRecord](t, logDir)
	hang, _ := find(recs, "hang_detected")
	reload, _ := find(recs, "config_reloaded")
	// By the wrapper's own clock: the reload decides at once. Left to its
	// timers, the hang would wait for the 5s tick after the warning.
	if after := hang.Time.Sub(reload.Time); after < 0 || after > time.Second || hang.Reason.IdleSilenceMS < 1000 {
		t.Errorf("hang declared %v after the reload, after %dms of silence; want at the reload", after, hang.Reason.IdleSilenceMS)
	}
	var reloaded struct {
		Changed []struct{ Key, Old, New string }
		Pinned  []string
	}
	data, _ := os.ReadFile(readLogPath(t, logDir))
	for line := range bytes.Lines(data) {
		if bytes.Contains(line, []byte(`"msg":"config_reloaded"`)) {
			json.Unmarshal(line, &reloaded)
		}
	}
	if len(reloaded.Changed) != 1 || reloaded.Changed[0].Key != "idle_timeout" || reloaded.Changed[0].New != "1s" ||
		len(reloaded.Pinned) != 1 || reloaded.Pinned[0] != "kill_grace = 9s in the file, held at 1s by the flag" {
		t.Errorf("config_reloaded %+v", reloaded)
	}
	for _, want := range []string{"cursor-wrap: warning: config not reloaded, keeping the last good values: " + cfg + ":3:",
		"cursor-wrap: config reloaded: idle_timeout 30s → 1s, kill_grace = 9s in the file, held at 1s by the flag"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

func readLogPath(t *testing.T, dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("logs %v", files)
	}
	return files[0]
}

func TestBadConfigAtStart(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "idle_timeout = \"30s\"\n\nidel_timeout = \"5s\"\n[tool_timeouts]\nshellToolCall = \"20m\"\n")
	r := runWrapper(t, nil, nil, "--config", cfg, "--", "line", resultLine)
	if r.code != 125 || !bytes.Contains(r.stderr, []byte(cfg+`:3: unknown key "idel_timeout"`)) {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestProfilesThroughTheWrapper runs each agent profile with the fake agent
// speaking that agent's stream: the first attempt hangs after the session
// is named, the restart resumes it the agent's way (gemini, which cannot
// resume by id, reruns the command), and the terminal event ends the run.
func TestProfilesThroughTheWrapper(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		agent, session, terminal string
		args, resumed            []string
	}{
		{"claude", `{"type":"system","subtype":"init","session_id":"cs-1"}`, `{"type":"result","subtype":"success","result":"ok","session_id":"cs-1"}`,
			[]string{"-p", "--output-format", "stream-json", "--verbose", "hi"}, []string{"-p", "--output-format", "stream-json", "--verbose", "--resume", "cs-1", "--", "continue"}},
		{"codex", `{"type":"thread.started","thread_id":"th-1"}`, `{"type":"turn.completed"}`,
			[]string{"exec", "--json", "hi"}, []string{"exec", "--json", "resume", "th-1", "--", "continue"}},
		{"gemini", `{"type":"init","session_id":"g-1"}`, `{"type":"result","status":"success"}`,
			[]string{"-p", "hi", "-o", "stream-json"}, []string{"-p", "hi", "-o", "stream-json"}},
		{"opencode", `{"type":"step_start","sessionID":"ses_1","part":{"messageID":"m1"}}`, `{"type":"step_finish","sessionID":"ses_1","part":{"messageID":"m1","reason":"stop"}}`,
			[]string{"run", "--format", "json", "hi"}, []string{"run", "--format", "json", "--session", "ses_1", "--", "continue"}},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "hung")
			r := runWrapper(t, []string{steps("args", "line", tc.session, "hang-once", marker, "line", tc.terminal, "hang")}, nil,
				append([]string{"--agent", tc.agent, "--idle-timeout", "2s", "--exit-grace", "300ms", "--restarts", "1", "--"}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var argvs [][]string
			for line := range bytes.Lines(r.stdout) {
				var a struct {
					Type string
					Argv []string
				}
				if json.Unmarshal(line, &a) == nil && a.Type == "args" {
					argvs = append(argvs, a.Argv)
				}
			}
			if len(argvs) != 2 || strings.Join(argvs[0], " ") != strings.Join(tc.args, " ") || strings.Join(argvs[1], " ") != strings.Join(tc.resumed, " ") {
				t.Errorf("attempts ran with %q, want %q then %q", argvs, tc.args, tc.resumed)
			}
			if !bytes.Contains(r.stderr, []byte("answered, did not exit, and was stopped")) {
				t.Errorf("the terminal event was not seen: %s", r.stderr)
			}
		})
	}
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		// Gone, or no /proc (macOS): ps tells, in either dialect.
		out, err := exec.Command("ps", "-o", "stat=", "-p", fmt.Sprint(pid)).Output()
		state := strings.TrimSpace(string(out))
		return err == nil && state != "" && state[0] != 'Z'
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// TestWrapperKilled SIGKILLs the wrapper: the agent dies with it (it is
// the agent's parent-death signal on Linux; on macOS the PTY hangup, which
// this agent does not handle), and the log, written as records come
// rather than at exit, holds every record up to then, whole.
func TestWrapperKilled(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--", "tty", "lines", "200", "100", "line", "ready", "hang")
	cmd.Env = testEnv()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	agent := 0
	for sc.Scan() && sc.Text() != "ready" {
		var tty struct{ Pid int }
		if json.Unmarshal(sc.Bytes(), &tty) == nil && tty.Pid > 0 {
			agent = tty.Pid
		}
	}
	// The records reach the file while the wrapper runs, with no fsync.
	events := func() int {
		n := 0
		for _, r := range readLogs[logRecord](t, logDir) { // fails on a torn record
			if r.Msg == "event" {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(5 * time.Second); events() < 202; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 202 events logged while the wrapper ran", events())
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(time.Second)
	// A zombie is dead; this machine's init does not reap orphans.
	for alive(agent) {
		if time.Now().After(deadline) {
			t.Fatalf("agent %d outlived its SIGKILLed wrapper by a second", agent)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := events(); n != 202 {
		t.Errorf("%d events in the log after the kill, want 202", n)
	}
}

// TestRestartReplaysStdin checks a rerun of the original command (the hung
// attempt named no session) gets the prompt that came on stdin again.
func TestRestartReplaysStdin(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "hung")
	r := runWrapper(t, []string{steps("stdin", "hang-once", marker, "line", resultLine)}, []byte("say hi\n"),
		"--idle-timeout", "2s", "--restarts", "1")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := bytes.Count(r.stdout, []byte(`"bytes":7,`)); n != 2 {
		t.Errorf("the attempts read %q", r.stdout)
	}
	if !bytes.Contains(r.stderr, []byte("no session id was seen (the agent stopped before it named its session), so the original command runs again")) {
		t.Errorf("stderr: %s", r.stderr)
	}
}

func atoi(b []byte) int {
	n, _ := strconv.Atoi(string(b))
	return n
}
