package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestConfigShapeBounded: a 16 KB config of inline tables nested 4,000 deep
// is refused at its line before the TOML parser sees it, in a few MB: the
// parser's cost grows with the square of the nesting (708 MB and 4.3 s for
// this file; 24 GB for 800 KB).
func TestConfigShapeBounded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	text := "idle_timeout = \"2m\"\nx = " + strings.Repeat("{a=", 4000) + "1" + strings.Repeat("}", 4000) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wrapperBin, "config", "--config", path)
	var stderr strings.Builder
	cmd.Env, cmd.Stderr = testEnv(), &stderr
	rss, err := peakRSS(t, cmd)
	if cmd.ProcessState.ExitCode() != 125 || !strings.Contains(stderr.String(), path+":2: nested more than 8 deep") {
		t.Errorf("%v; stderr %s", err, stderr.String())
	}
	// Parsed, it took 711 MiB; refused, what the wrapper needs to start.
	if rss > 200<<20 {
		t.Errorf("peak RSS %d MiB reading the config", rss>>20)
	}
}

// TestHookOutputBounded: an on_hang command that prints 100 MB costs the
// wrapper what it keeps of it (64 KiB, and a line that says how much more
// there was), not the 100 MB: it took 670-740 MiB and wrote a 150 MB log
// line.
func TestHookOutputBounded(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--idle-timeout", "300ms",
		"--on-hang", "head -c 100000000 /dev/zero | tr '\\0' y", "--", "line", initLine, "hang")
	var stderr strings.Builder
	cmd.Env, cmd.Stderr = testEnv(), &stderr
	rss, _ := peakRSS(t, cmd)
	if cmd.ProcessState.ExitCode() != 124 {
		t.Fatalf("exit %d: %s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	if rss > 200<<20 {
		t.Errorf("peak RSS %d MiB for an on_hang command's 100 MB", rss>>20)
	}
	var hook map[string]any
	for _, rec := range readLogs[map[string]any](t, logDir) {
		if rec["msg"] == "on_hang" {
			hook = rec
		}
	}
	out, _ := hook["output"].(string)
	if hook == nil || len(out) > 65<<10 || !strings.HasSuffix(out, "… [99934464 more bytes not kept]\n") {
		t.Errorf("on_hang record with %d bytes of output, ending %q", len(out), out[max(0, len(out)-60):])
	}
}

// TestHookTreeEndsWithIt: an on_hang command that leaves children running,
// in its group and out of it, ends with them stopped, and is logged as
// what it was: succeeded, its leftovers stopped (25.4). Both sleeps
// outlived the wrapper, and the hook was logged failed ("WaitDelay expired
// before I/O complete"), the leftovers holding its output.
func TestHookTreeEndsWithIt(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, nil, nil, "--idle-timeout", "300ms",
		"--on-hang", "sleep 300 & echo $!; setsid sleep 300 & echo $!; echo sent", "--", "line", initLine, "hang")
	if r.code != 124 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var hook map[string]any
	for _, rec := range readLogs[map[string]any](t, r.logDir) {
		if rec["msg"] == "on_hang" || rec["msg"] == "on_hang_failed" {
			hook = rec
		}
	}
	if hook == nil || hook["msg"] != "on_hang" || hook["leftovers_stopped"] != float64(2) {
		t.Errorf("hook record %v; stderr %s", hook, r.stderr)
	}
	out, _ := hook["output"].(string)
	lines := strings.Fields(out)
	if len(lines) != 3 || lines[2] != "sent" {
		t.Fatalf("hook output %q", out)
	}
	for _, pid := range lines[:2] {
		if n, _ := strconv.Atoi(pid); alive(n) {
			t.Errorf("the hook's sleep %d outlived the wrapper", n)
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
}

// TestFloorsRefuseNaN: a floor of nan or inf is refused (125), from a flag
// and from the file: accepted, NaN turned the CPU floor off, and a busy
// agent was killed as hung.
func TestFloorsRefuseNaN(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--activity-cpu-floor", "nan"}, {"--activity-read-floor", "inf"}} {
		r := runWrapper(t, nil, nil, append(args, "--", "line", initLine, "line", resultLine)...)
		if r.code != 125 || !strings.Contains(string(r.stderr), "is not a number a floor can be") {
			t.Errorf("%q: exit %d; stderr %s", args, r.code, r.stderr)
		}
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("activity_cpu_floor = nan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runRaw(t, nil, "config", "--config", path); r.code != 125 {
		t.Errorf("activity_cpu_floor = nan in the file: exit %d; stderr %s", r.code, r.stderr)
	}
}
