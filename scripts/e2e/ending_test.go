package e2e

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestInterruptedWhileWaitingToRestart checks that a run the user stops
// while the wrapper waits out a rate limit before its restart is recorded
// as interrupted (130), not as its last attempt ended: sessions, report
// and inspect read the end from the log. SIGINT and SIGTERM alike.
func TestInterruptedWhileWaitingToRestart(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			logDir := t.TempDir()
			cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--restarts", "1", "--", "fix it")
			cmd.Env = append(testEnv(), steps("resumed-answer", "line", initLine,
				"line", "Error: S: [resource_exhausted] Error. Please try again in 1h.", "exit", "1"))
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			var seen []string
			for sc.Scan() {
				seen = append(seen, sc.Text())
				if strings.Contains(sc.Text(), "waiting 1h0m0s first") {
					break
				}
			}
			cmd.Process.Signal(sig)
			for sc.Scan() {
				seen = append(seen, sc.Text())
			}
			var ee *exec.ExitError
			want := 128 + int(sig)
			if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != want {
				t.Fatalf("exit %v, want %d; stderr %s", err, want, strings.Join(seen, "\n"))
			}

			if _, sessions := sessionsOf(t, logDir); len(sessions) != 1 || sessions[0].Outcome != "interrupted" ||
				sessions[0].ExitStatus == nil || *sessions[0].ExitStatus != want {
				t.Errorf("sessions: %+v", sessions)
			}
			r := runRaw(t, nil, "report", "--json", "--log-dir", logDir)
			if !strings.Contains(string(r.stdout), `"interrupted"`) || strings.Contains(string(r.stdout), `"agent_error"`) {
				t.Errorf("report: %s", r.stdout)
			}
			if out := string(inspectLast(t, logDir)); !strings.Contains(out, "wrapper status "+strconv.Itoa(want)) {
				t.Errorf("inspect: %s", out)
			}
		})
	}
}

// TestStdoutClosedWhileWaitingToRestart checks the same rule for a reader
// that goes away during the wait: nothing is written then, so the next
// attempt finds the closed pipe, and its log, the run's last, says 141,
// the status the wrapper exits with.
func TestStdoutClosedWhileWaitingToRestart(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--restarts", "1", "--", "fix it")
	cmd.Env = append(testEnv(), steps("resumed-answer", "line", initLine,
		"line", "Error: S: [resource_exhausted] Error. Please try again in 1s.", "exit", "1"))
	cmd.Stdout = w
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	sc := bufio.NewScanner(stderr)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.Contains(sc.Text(), "waiting 1s first") {
			break
		}
	}
	r.Close()
	for sc.Scan() {
		seen = append(seen, sc.Text())
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Fatalf("exit %v, want 141; stderr %s", err, strings.Join(seen, "\n"))
	}
	// One run of two attempts: the restart's attempt is the run's end.
	if _, sessions := sessionsOf(t, logDir); len(sessions) != 1 || len(sessions[0].Attempts) != 2 || sessions[0].Prompt != "fix it" ||
		sessions[0].ExitStatus == nil || *sessions[0].ExitStatus != 141 {
		t.Errorf("sessions: %+v", sessions)
	}
	res := runRaw(t, nil, "report", "--json", "--log-dir", logDir)
	if !strings.Contains(string(res.stdout), `"attempts": 2,`) || !strings.Contains(string(res.stdout), `"stdout closed": 1`) {
		t.Errorf("report: %s", res.stdout)
	}
}

// TestStartFailedRecordsItsStatus checks that an agent that cannot be
// started (executable, but not a program the kernel runs) leaves the status
// the wrapper exits with in its log: sessions gives it, and inspect says the
// agent was not started. (An agent not found or not executable is refused
// before any log is opened.)
func TestStartFailedRecordsItsStatus(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(bin, []byte("\x7fELF, but no program"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := runRaw(t, nil, "--agent-bin", bin, "--log-dir", logDir, "--", "hi")
	if r.code != 126 {
		t.Fatalf("exit %d, want 126; stderr %s", r.code, r.stderr)
	}
	if _, sessions := sessionsOf(t, logDir); len(sessions) != 1 || sessions[0].Outcome != "start failed" ||
		sessions[0].ExitStatus == nil || *sessions[0].ExitStatus != 126 {
		t.Errorf("sessions: %+v", sessions)
	}
	if out := string(inspectLast(t, logDir)); !strings.Contains(out, "agent not started at ") || !strings.Contains(out, "wrapper status 126 (start_failed)") {
		t.Errorf("inspect: %s", out)
	}
}
