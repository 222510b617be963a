package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// stderrRun runs the wrapper with agent steps, its stderr a pipe that
// read reads (exited is closed once the wrapper exited); it returns what
// read got, the exit status and the log dir.
func stderrRun(t *testing.T, read func(r io.Reader, exited <-chan struct{}) []byte, agentSteps ...string) ([]byte, int, string) {
	t.Helper()
	logDir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--", "fix it")
	cmd.Env = append(testEnv(), steps(agentSteps...))
	cmd.Stdout = io.Discard
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, exited := make(chan []byte, 1), make(chan struct{})
	go func() { got <- read(r, exited) }()
	err = cmd.Wait()
	close(exited)
	stderr := <-got
	r.Close()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("wrapper: %v", err)
	}
	return stderr, cmd.ProcessState.ExitCode(), logDir
}

// TestSlowStderrReader (33.8): a caller reads the wrapper's stderr at
// 40 KB/s while the agent writes 199 KB to it, ends with a FATAL line and
// exits 1. The caller gets all of it, the FATAL line, then the wrapper's
// summary, and the status is the agent's (it got 107–114 KB: the last
// line and the summary were lost, and nothing said so).
func TestSlowStderrReader(t *testing.T) {
	t.Parallel()
	slow := func(r io.Reader, _ <-chan struct{}) []byte {
		var all []byte
		buf := make([]byte, 4<<10)
		for {
			n, err := r.Read(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				return all
			}
			time.Sleep(100 * time.Millisecond) // 4 KiB a tenth of a second: 40 KB/s
		}
	}
	stderr, code, logDir := stderrRun(t, slow, "line", initLine, "errflood", "199000", "err", "FATAL: disk full", "exit", "1")
	agent, wrapper, _ := bytes.Cut(stderr, []byte("FATAL: disk full\n"))
	if code != 1 || len(agent) != 199000 || bytes.Count(agent, []byte("\n")) != 1990 ||
		!strings.HasPrefix(string(wrapper), "cursor-wrap: session s-1 exited 1") || !strings.HasSuffix(string(wrapper), ".jsonl\n") {
		t.Errorf("exit %d; stderr had %d bytes before FATAL (want 199,000), then %q", code, len(agent), wrapper)
	}
	if rec := firstRecord(t, logDir, "stderr_dropped"); rec != nil {
		t.Errorf("a slow reader, and yet %v", rec)
	}
}

// TestStderrNeverRead (33.8): a caller that holds the wrapper's stderr
// and never reads it (until the wrapper exits) is given up on once it has
// taken nothing for 10 s: the wrapper exits with the agent's status, and
// the log says how many bytes its stderr did not take.
func TestStderrNeverRead(t *testing.T) {
	t.Parallel()
	never := func(r io.Reader, exited <-chan struct{}) []byte {
		<-exited
		b, _ := io.ReadAll(r)
		return b
	}
	start := time.Now()
	stderr, code, logDir := stderrRun(t, never, "line", initLine, "errflood", "300000", "exit", "3")
	took := time.Since(start)
	rec := firstRecord(t, logDir, "stderr_dropped")
	if code != 3 || rec == nil || took > 60*time.Second {
		t.Fatalf("exit %d after %v, record %v", code, took, rec)
	}
	lost := int(rec["bytes"].(float64))
	if extra := len(stderr) + lost - 300000; extra < 0 || extra > 2000 {
		t.Errorf("stderr got %d bytes and %d were said lost, of 300,000 and the wrapper's summary", len(stderr), lost)
	}
	if !strings.Contains(rec["error"].(string), "stderr took nothing for 10s") {
		t.Errorf("record %v", rec)
	}
}
