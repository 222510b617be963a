package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEverySignalEndsARunTheSameWay: a signal whose default would end the
// wrapper, sent while a tool runs in a session of its own, is passed on, the
// whole tree is stopped (the tool too), the log gets its exit record, and
// the wrapper exits 128+n. Uncaught, SIGQUIT dumped 276 lines of goroutines
// and exited 2, and the tool survived.
func TestEverySignalEndsARunTheSameWay(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGQUIT, syscall.SIGABRT, syscall.SIGUSR1, syscall.SIGUSR2,
		syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGTRAP, syscall.SIGSYS, syscall.Signal(40)} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			logDir := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--kill-grace", "500ms",
				"--", "setsid-child", "line", initLine, "hang")
			cmd.Env = testEnv()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			child := 0
			lines := bufio.NewScanner(stdout)
			for child == 0 && lines.Scan() {
				var m struct {
					Type string
					Pid  int
				}
				if json.Unmarshal(lines.Bytes(), &m) == nil && m.Type == "child" {
					child = m.Pid
				}
			}
			if child == 0 {
				t.Fatalf("no tool started; stderr %s", stderr.Bytes())
			}
			t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
			for lines.Scan() && !bytes.Contains(lines.Bytes(), []byte(`"init"`)) {
			}
			cmd.Process.Signal(sig)
			for lines.Scan() {
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Errorf("exit %v, want %d; stderr %s", err, 128+int(sig), stderr.Bytes())
			}
			// (The fake agent is a Go program: its own goroutine dump on
			// SIGQUIT or SIGABRT is its stderr, passed through.)
			if !strings.Contains(stderr.String(), "cursor-wrap: warning: got "+cmp.Or(unix.SignalName(sig), sig.String())+"; passing it to the agent") {
				t.Errorf("stderr does not say the signal was passed on: %.300s", stderr.Bytes())
			}
			for deadline := time.Now().Add(5 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the tool (pid %d) outlived the run", child)
				}
			}
			var exits int
			for _, rec := range readLogs[logRecord](t, logDir) {
				if rec.Msg == "exit" {
					exits++
				}
			}
			if exits != 1 {
				t.Errorf("%d exit records, want 1", exits)
			}
		})
	}
}
