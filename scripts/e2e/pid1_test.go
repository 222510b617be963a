package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
)

// TestFirstProcessInAContainer runs the wrapper as PID 1 of a new PID
// namespace, as a container's first process: each signal it passes on,
// sent with `kill 1` from inside the namespace (the kernel delivers to
// PID 1 only the signals it handles), ends the run with 128+n, as
// without a namespace; no tini is needed in front of it.
func TestFirstProcessInAContainer(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd, lines, stderr, wrapper := asPID1(t, "--agent-bin", agentBin, "--log-dir", t.TempDir(), "--kill-grace", "500ms", "--", "line", initLine, "hang")
			if out, err := exec.Command("nsenter", "--target", strconv.Itoa(wrapper), "--pid", "--mount", "--",
				"kill", "-"+strconv.Itoa(int(sig)), "1").CombinedOutput(); err != nil {
				t.Fatalf("kill 1 inside the namespace: %v: %s", err, out)
			}
			for lines.Scan() {
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Errorf("exit %v, want %d; stderr %s", err, 128+int(sig), stderr.Bytes())
			}
			if !strings.Contains(stderr.String(), "passing it to the agent") {
				t.Errorf("stderr does not say the signal was passed on: %.300s", stderr.Bytes())
			}
		})
	}
}

// asPID1 starts the wrapper, with args, as PID 1 of a new PID namespace,
// reads its stdout up to the agent's init line, and returns the command,
// its stdout from there, its stderr and the wrapper's pid outside.
func asPID1(t *testing.T, args ...string) (*exec.Cmd, *bufio.Scanner, *bytes.Buffer, int) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.SkipOutsideCI(t, "a PID namespace needs root")
	}
	for _, tool := range []string{"unshare", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.SkipOutsideCI(t, "%s: %v", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "unshare", append([]string{"--pid", "--fork", "--mount-proc", "--", wrapperBin}, args...)...)
	cmd.Env = testEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && !bytes.Contains(lines.Bytes(), []byte(`"init"`)) {
	}
	return cmd, lines, stderr, namespaceInit(t, cmd.Process.Pid)
}

// namespaceInit returns the one child of pid (unshare's: the namespace's PID 1).
func namespaceInit(t *testing.T, pid int) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if f := strings.Fields(string(b)); len(f) > 0 {
			child, _ := strconv.Atoi(f[0])
			return child
		}
	}
	t.Fatalf("unshare (pid %d) started no child", pid)
	return 0
}

// TestFirstProcessReapsStrangers: orphans re-parented to the wrapper as
// PID 1 that are not the agent's (a process `kubectl exec` started, which
// left a busy child behind and one that soon exits) are reaped, never
// left as zombies, and never credited as the agent's work: the hung
// agent is stopped at the idle timeout.
func TestFirstProcessReapsStrangers(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	idle := 2 * time.Second
	cmd, lines, stderr, wrapper := asPID1(t, "--agent-bin", agentBin, "--log-dir", logDir, "--kill-grace", "500ms",
		"--restarts", "0", "--idle-timeout", idle.String(), "--max-silence", "30s", "--", "line", initLine, "hang")
	// The stranger's shell exits at once: its busy loop and its short
	// sleep are re-parented to PID 1, the wrapper.
	if out, err := exec.Command("nsenter", "--target", strconv.Itoa(wrapper), "--pid", "--mount", "--",
		"sh", "-c", `(while :; do :; done) >/dev/null 2>&1 & (sleep 0.2) >/dev/null 2>&1 & echo started`).CombinedOutput(); err != nil {
		t.Fatalf("a stranger inside the namespace: %v: %s", err, out)
	}
	// The short sleep ends and is reaped while the agent is still silent:
	// it leaves the namespace's process list, not even a zombie (state Z).
	for deadline := time.Now().Add(idle - 200*time.Millisecond); ; time.Sleep(50 * time.Millisecond) {
		out, err := exec.Command("nsenter", "--target", strconv.Itoa(wrapper), "--pid", "--mount", "--",
			"sh", "-c", `for s in /proc/[0-9]*/stat; do read -r l < "$s" 2>/dev/null && echo "$l"; done`).Output()
		if err != nil {
			t.Fatalf("reading the namespace's processes: %v", err)
		}
		sleep := ""
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "(sleep)") {
				sleep = l
			}
		}
		if sleep == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the stranger's sleep is still in the namespace, not reaped: %s", sleep)
			break
		}
	}
	for lines.Scan() {
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 124 {
		t.Fatalf("exit %v, want 124 (hung); stderr %s", err, stderr.Bytes())
	}
	silence, _ := hangSilence(t, result{logDir: logDir, code: 124, stderr: stderr.Bytes()})
	if silence < idle || silence > idle+1500*time.Millisecond {
		t.Errorf("hung after %v of silence, want at the idle timeout (%v): the stranger's CPU was credited to the agent", silence, idle)
	}
}
