package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
)

// The fault suite: each way the wrapper was found to hang, leak or lie,
// played against the built binary, so none comes back. The tests name the
// fault they guard (issue 13's numbering in the comments).

const undeclaredCall = `{"type":"tool_call","subtype":"started","call_id":"u1","tool_call":{"readToolCall":{"args":{"path":"x"}}}}`

// logText is every session log in dir, concatenated.
func logText(t *testing.T, dir string) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl"))
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// record returns the first record named msg in dir's logs, decoded.
func firstRecord(t *testing.T, dir, msg string) map[string]any {
	t.Helper()
	for line := range bytes.Lines(logText(t, dir)) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["msg"] == msg {
			return m
		}
	}
	return nil
}

// childOf returns the pid the fake agent printed for its child.
func childOf(t *testing.T, stdout []byte) int {
	t.Helper()
	for line := range bytes.Lines(stdout) {
		var m struct {
			Type string
			Pid  int
		}
		if json.Unmarshal(line, &m) == nil && m.Type == "child" {
			return m.Pid
		}
	}
	t.Fatalf("no child in %q", stdout)
	return 0
}

// TestFaultCaps: a cap holds whatever the agent does (13.1, 13.2, 13.4,
// 13.5, 13.13).
func TestFaultCaps(t *testing.T) {
	t.Parallel()
	t.Run("hard timeout after the result", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, nil, nil, "--hard-timeout", "3s", "--exit-grace", "1m", "--idle-timeout", "1m",
			"--", "line", resultLine, "tick", "1000", "500ms")
		rec := firstRecord(t, r.logDir, "exit_overdue")
		if r.code != 0 || rec == nil || rec["reason"].(map[string]any)["kind"] != "deadline" {
			t.Errorf("exit %d, overdue record %v; stderr %s", r.code, rec, r.stderr)
		}
	})
	t.Run("a heartbeat after the result", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, nil, nil, "--idle-timeout", "2s", "--exit-grace", "1s", "--", "line", resultLine, "tick", "1000", "300ms")
		if r.code != 0 || firstRecord(t, r.logDir, "exit_overdue") == nil {
			t.Errorf("exit %d; stderr %s", r.code, r.stderr)
		}
	})
	t.Run("a grandchild that keeps writing after the agent exits", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, nil, nil, "--", "chatty-child", "line", resultLine, "exit", "0")
		if r.code != 0 || alive(childOf(t, r.stdout)) {
			t.Errorf("exit %d, grandchild alive %v; stderr %s", r.code, alive(childOf(t, r.stdout)), r.stderr)
		}
	})
	t.Run("a dev server from an earlier call", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, nil, nil, "--idle-timeout", "1s", "--max-silence", "1m",
			"--", "setsid-child", "sleep", "700ms", "line", `{"type":"thinking"}`, "sleep", "700ms", "line", undeclaredCall, "hang")
		hang := firstRecord(t, r.logDir, "hang_detected")
		if r.code != 124 || hang == nil {
			t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
		}
		if act, ok := hang["reason"].(map[string]any)["activity"].(map[string]any); ok && (act["extended_ms"].(float64) > 0 || act["tool_running"] == true) {
			t.Errorf("the dev server excused the silence: %v", act)
		}
	})
	t.Run("a hundred thousand open calls", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, nil, nil, "--idle-timeout", "1s", "--", "calls", "100000", "hang")
		hang := firstRecord(t, r.logDir, "hang_detected")
		if r.code != 124 || hang == nil {
			t.Fatalf("exit %d; stderr %.500s", r.code, r.stderr)
		}
		reason := hang["reason"].(map[string]any)
		if n := len(reason["open_calls"].([]any)); n > 10 || reason["open_call_count"].(float64) != 100000 {
			t.Errorf("%d calls listed of %v", n, reason["open_call_count"])
		}
		for line := range bytes.Lines(r.stderr) {
			if len(line) > 2000 {
				t.Errorf("a stderr line of %d bytes", len(line))
			}
		}
		// How late, past the threshold, the watchdog declared the hang, by
		// its own clock (the record's time would add the kill and the tree
		// walks before it is written). The loop decides only once it has
		// parsed what the reader queued (at most 8 reads of 64 KiB, some
		// 4,800 of these lines), so lateness is that backlog. A status
		// snapshot that scanned every open call made it seconds; now the
		// backlog costs ~40ms of CPU under -race, and the rest is the share
		// of a CPU the scheduler gives the loop: 1.4s late with a load
		// average of 26 on two cores, hence 2s.
		if late := time.Duration(reason["idle_silence_ms"].(float64))*time.Millisecond - time.Second; late < 0 || late > 2*time.Second {
			t.Errorf("the hang was declared %v late", late)
		}
		// An event cost that grew with the open calls would take hours of
		// CPU; it takes ~4.5s under -race. CPU, since the wall clock is the
		// machine's load (62s at that load average).
		t.Logf("100 000 calls: %v of CPU (the wrapper and its agent) in %v", r.cpu, r.took)
		if r.cpu > time.Minute {
			t.Errorf("100 000 calls took %v of CPU", r.cpu)
		}
	})
	t.Run("a declared budget of centuries", func(t *testing.T) {
		t.Parallel()
		start := `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"make","timeout":1e16}}}}`
		end := `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{}}`
		r := runWrapper(t, nil, nil, "--idle-timeout", "1s", "--", "line", start, "sleep", "2500ms", "line", end, "line", resultLine)
		if r.code != 0 {
			t.Errorf("exit %d; stderr %s", r.code, r.stderr)
		}
	})
}

// TestFaultOutputs: a stderr or stdout that misbehaves costs words or the
// rest of the output, never a kill, and the status says what happened
// (13.3, 13.7, 13.12).
func TestFaultOutputs(t *testing.T) {
	t.Parallel()
	t.Run("nobody reads stderr", func(t *testing.T) {
		t.Parallel()
		// 2 MB: more than the pipe and the console's queue hold together,
		// so that the copy of the agent's stderr is still blocked when the
		// attempt ends.
		r := wrapperRun(t, func(cmd *exec.Cmd) {
			pr, pw, _ := os.Pipe()
			t.Cleanup(func() { pr.Close() })
			cmd.Stderr = pw
		}, "--idle-timeout", "1s", "--", "errflood", "2000000", "hang")
		if r.code != 124 || firstRecord(t, r.logDir, "hang_detected") == nil {
			t.Errorf("exit %d", r.code)
		}
	})
	t.Run("stdout on a full disk", func(t *testing.T) {
		t.Parallel()
		r := wrapperRun(t, func(cmd *exec.Cmd) {
			full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				testenv.SkipOutsideCI(t, "no /dev/full: %v", err)
			}
			t.Cleanup(func() { full.Close() })
			cmd.Stdout = full
		}, "--", "line", initLine, "sleep", "5s", "line", resultLine)
		if r.code != 74 || !bytes.Contains(r.stderr, []byte("no space left on device")) {
			t.Errorf("exit %d after %v; stderr %s", r.code, r.took, r.stderr)
		}
		// Stopped at the failed write, not left to finish its 5s sleep:
		// the wrapper's log says it signalled the agent.
		var stopped []string
		for _, rec := range readLogs[logRecord](t, r.logDir) {
			if rec.Msg == "downstream_closed" || rec.Msg == "kill" && rec.Signal == "SIGTERM" {
				stopped = append(stopped, rec.Msg)
			}
		}
		if !slices.Equal(stopped, []string{"downstream_closed", "kill"}) {
			t.Errorf("records %q, want downstream_closed then a SIGTERM", stopped)
		}
	})
	// Python's DEVNULL, Node's 'ignore' and systemd's StandardOutput=null
	// open /dev/null read-write, and the Go runtime reopens a stdout closed
	// at start so: a stdout like any other, whose writes are discarded. A
	// stdout open for reading only is a real write error.
	for _, tc := range []struct {
		name, redirect string
		want           int
		says           string
	}{
		{"stdout on /dev/null opened read-write", "1<>/dev/null", 0, "finished (exit 0)"},
		{"stdout closed at start", ">&-", 0, "finished (exit 0)"},
		{"stdout open for reading only", "1</dev/null", 74, "stdout is not open for writing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A descriptor opened or closed so cannot be passed through
			// os/exec: a shell does it.
			cmd := exec.Command("sh", "-c", `exec "$0" "$@" `+tc.redirect, wrapperBin, "--agent-bin", agentBin, "--log-dir", t.TempDir(), "--", "line", initLine, "line", resultLine)
			cmd.Env = testEnv()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want || !bytes.Contains(stderr.Bytes(), []byte(tc.says)) {
				t.Errorf("exit %d: %s", code, stderr.Bytes())
			}
		})
	}
	t.Run("stdout that takes nothing after the agent exits", func(t *testing.T) {
		t.Parallel()
		// 70 KB: more than the pipe takes, and little enough for the
		// terminal to hold the rest, so that the agent can exit. (An agent
		// blocked on a stdout that takes nothing waits, as it would without
		// the wrapper: that is not a hang.)
		var pr *os.File
		r := wrapperRun(t, func(cmd *exec.Cmd) {
			var pw *os.File
			pr, pw, _ = os.Pipe()
			cmd.Stdout = pw
		}, "--", "lines", "700", "100", "line", resultLine)

		defer pr.Close()
		if r.code != 74 || !bytes.Contains(r.stderr, []byte("stdout took nothing")) {
			t.Errorf("exit %d after %v; stderr %s", r.code, r.took, r.stderr)
		}
	})
	t.Run("the agent runs stty sane", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, nil, nil, "--", "stty-sane", "lines", "300", "100", "line", resultLine)
		if r.code != 0 || bytes.Contains(r.stdout, []byte("\r")) || bytes.Count(r.stdout, []byte("\n")) != 301 {
			t.Errorf("exit %d, %d \\r in stdout", r.code, bytes.Count(r.stdout, []byte("\r")))
		}
	})
}

// TestFaultConfig: a config value or file that could spin, block or fill
// memory is refused at start (13.6).
func TestFaultConfig(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"a tick that spins":     {"--tick-interval", "1ns"},
		"a FIFO for a config":   {"--config", fifo},
		"a device for a config": {"--config", "/dev/zero"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runWrapper(t, nil, nil, append(args, "--", "line", resultLine)...)
			if r.code != 125 || r.took > 10*time.Second {
				t.Errorf("exit %d after %v: %s", r.code, r.took, r.stderr)
			}
		})
	}
}

// TestFaultData: the log dir, stdin and the logs of running sessions are
// handled with care (13.8, 13.9, 13.10, 13.11).
func TestFaultData(t *testing.T) {
	t.Parallel()
	t.Run("a shared log dir is not re-moded", func(t *testing.T) {
		t.Parallel()
		shared := filepath.Join(t.TempDir(), "tmp")
		os.Mkdir(shared, 0o777)
		os.Chmod(shared, 0o777|os.ModeSticky)
		cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", shared, "--", "line", resultLine)
		cmd.Env = testEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		fi, _ := os.Stat(shared)
		logs, _ := filepath.Glob(filepath.Join(shared, fmt.Sprintf("cursor-wrap-%d", os.Geteuid()), "cursor-wrap-*.jsonl"))
		if fi.Mode() != os.ModeDir|os.ModeSticky|0o777 || len(logs) != 1 {
			t.Errorf("mode %v, logs %v", fi.Mode(), logs)
		}
	})
	t.Run("a large stdin is not kept", func(t *testing.T) {
		t.Parallel()
		const size = 300 << 20
		cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", t.TempDir(), "--", "stdin", "sleep", "500ms", "line", resultLine)
		cmd.Env = testEnv()
		cmd.Stdin = io.LimitReader(zeros{}, size)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The wrapper's own high-water mark, read while it runs: the rusage
		// of a child counts the test process's memory too (Go forks with
		// a shared address space until exec).
		var peak int64
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		for waiting := true; waiting; {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				waiting = false
			case <-time.After(50 * time.Millisecond):
				if hwm := vmHWM(cmd.Process.Pid); hwm > peak {
					peak = hwm
				}
			}
		}
		if !bytes.Contains(stdout.Bytes(), []byte(fmt.Sprintf(`"bytes":%d`, size))) {
			t.Fatalf("stdout %.300s", stdout.Bytes())
		}
		if peak == 0 || peak > 150<<20 {
			t.Errorf("the wrapper's peak RSS was %d MiB for %d MiB of stdin", peak>>20, size>>20)
		}
	})
	t.Run("a rerun gets the whole stdin", func(t *testing.T) {
		t.Parallel()
		prompt := bytes.Repeat([]byte("0123456789abcdef"), 25_000) // 400 000 bytes
		once := filepath.Join(t.TempDir(), "once")
		r := runWrapper(t, nil, prompt, "--restarts", "1", "--idle-timeout", "1s", "--", "hang-once", once, "stdin", "line", resultLine)
		sum := sha256.Sum256(prompt)
		if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"sha256":"`+hex.EncodeToString(sum[:])+`"`)) {
			t.Errorf("exit %d; stdout %.300s; stderr %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("pruning spares a running session's log", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		// The long session runs until its stdin closes, after the others
		// (--stdin-wait 0: however long they take).
		long := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", dir, "--log-keep", "1", "--stdin-wait", "0", "--", "line", initLine, "stdin", "line", resultLine)
		long.Env = testEnv()
		var stderr bytes.Buffer
		long.Stderr = &stderr
		stdin, err := long.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := long.Start(); err != nil {
			t.Fatal(err)
		}
		defer stdin.Close() // Ends the long session if a check stops the test early.
		waitForFile(t, dir)
		// Each run prunes to one idle log as it starts: the long session's
		// log stays (its session runs), and every earlier short run's goes.
		// A run can list the logs before its own exists, and then keeps the
		// one before it.
		var short []string
		for range 3 {
			r := runRaw(t, nil, "--agent-bin", agentBin, "--log-dir", dir, "--log-keep", "1", "--", "line", resultLine)
			if r.code != 0 {
				t.Fatalf("a short run: exit %d; stderr %s", r.code, r.stderr)
			}
			short = append(short, logPathOf(t, r.stderr))
		}
		stdin.Close()
		if err := long.Wait(); err != nil {
			t.Fatal(err)
		}
		kept, err := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		longLog := logPathOf(t, stderr.Bytes())
		for _, must := range []string{longLog, short[2]} {
			if !slices.Contains(kept, must) {
				t.Errorf("%s is gone; left: %q", must, kept)
			}
		}
		for _, path := range kept {
			if !slices.Contains([]string{longLog, short[1], short[2]}, path) {
				t.Errorf("%s was not pruned; left: %q", path, kept)
			}
		}
	})
}

// logPathOf reads the session log's path from the end of the wrapper's
// stderr ("...; log PATH").
func logPathOf(t *testing.T, stderr []byte) string {
	t.Helper()
	i := bytes.LastIndex(stderr, []byte("; log "))
	if i < 0 {
		t.Fatalf("no log path in stderr %q", stderr)
	}
	return string(bytes.TrimSpace(stderr[i+len("; log "):]))
}

// waitForFile waits until a session log appears in dir.
func waitForFile(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if logs, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl")); len(logs) > 0 {
			return
		}
	}
	t.Fatal("no session log appeared")
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestFaultSecrets: no secret reaches the log or the console, however the
// agent or the environment carries it (13.14, 13.15, 13.16).
func TestFaultSecrets(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-api03-ABCDEFGHIJKLMNOPQRST"
	secrets := map[string]string{
		"GITHUB_PAT": "pat_value_0123456789", "MYSQL_PWD": "mysql_pw_0123456", "SMTP_PASSWD": "smtp_pw_0123456",
		"NPM_AUTH": "npm_auth_0123456", "DATABASE_URL": "postgres://u:dbpassword99@h/db", "TOOL_TOKEN": "ghp_0123456789abcdefghijABCDEFGHIJ",
	}
	var env []string
	for k, v := range secrets {
		env = append(env, k+"="+v)
	}
	started := `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"curl -H 'x: ` + key + `' \u001b]0;pwned\u0007\u001b[2J"}}}}`
	completed := `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{}}`
	r := runWrapper(t, env, nil, "--", "line", "\xff not UTF-8, and "+key, "line", started, "sleep", "1s", "line", completed, "line", resultLine)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	logs := logText(t, r.logDir)
	for _, leak := range append([]string{"ABCDEFGHIJKLMNOPQRST", base64.StdEncoding.EncodeToString([]byte(key))[8:30]}, valuesOf(secrets)...) {
		if bytes.Contains(logs, []byte(leak)) {
			t.Errorf("the log holds %q", leak)
		}
		if bytes.Contains(r.stderr, []byte(leak)) {
			t.Errorf("the console printed %q", leak)
		}
	}
	if !bytes.Contains(r.stderr, []byte("during shellToolCall")) || bytes.ContainsAny(r.stderr, "\x1b\x07") {
		t.Errorf("the summary names the call without control characters: %q", r.stderr)
	}
	// inspect decodes the base64 line: it must hold the mask, not the key.
	logs2, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*.jsonl"))
	out, err := exec.Command(wrapperBin, "inspect", "--json", logs2[0]).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("ABCDEFGHIJKLMNOPQRST")) {
		t.Errorf("inspect: %v: %.300s", err, out)
	}
}

func valuesOf(m map[string]string) []string {
	var out []string
	for _, v := range m {
		if _, secret, ok := strings.Cut(v, "://u:"); ok {
			v = strings.Split(secret, "@")[0] // The URL's password, not its host.
		}
		out = append(out, v)
	}
	return out
}

// TestFaultOrphans: a daemon the agent starts with an empty environment,
// in a session of its own, is gone when the wrapper exits (13.19).
func TestFaultOrphans(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, nil, nil, "--", "setsid-noenv", "line", resultLine, "exit", "0")
	if r.code != 0 || alive(childOf(t, r.stdout)) {
		t.Errorf("exit %d, daemon alive %v", r.code, alive(childOf(t, r.stdout)))
	}
}

// vmHWM is a process's peak resident memory, in bytes, 0 if unknown.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			var kb int64
			fmt.Sscanf(string(bytes.TrimSpace(v)), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}
