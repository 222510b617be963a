package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests of issue 32, through the built binary: evidence counts when it
// is the agent's own and answers what it waits on. Each run's verdict is
// read from the wrapper's own log (the silence it measured when it
// declared a hang), so a loaded machine does not change it.

// scaled is the factor every figure of a transport is scaled by, with the
// wrapper's thresholds, so a test of minutes takes seconds: cursor's 5 s
// heartbeat is 500 ms, the default 60 s idle timeout 6 s. (At 15, a test
// process starved for 4 s on a machine at load 47 missed a peer's
// keep-alives for longer than a scaled idle timeout.)
const scaled = 10

func scale(d time.Duration) time.Duration { return d / scaled }

// TestTextModeToolAtWork (issue 32, case 4): in text mode, where no call
// events say what runs, a tool under the agent at work (CPU) still excuses
// the silence.
func TestTextModeToolAtWork(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{"CURSOR_WRAP_SHELL_FUNC=cursor-agent"}, nil, "--alias", "--idle-timeout", "2s",
		"--", "-p", "--output-format", "text", "work", "8s", "line", "All done.")
	if r.code != 0 || firstRecord(t, r.logDir, "hang_detected") != nil || !bytes.Contains(r.stdout, []byte("All done.")) {
		t.Errorf("exit %d after %v; stderr %s", r.code, r.took, r.stderr)
	}
}

var mockModelBin = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(wrapperBin), "mockmodel")
	out, err := exec.Command("go", "build", "-o", bin, "./scripts/mockmodel").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the mock model: %v\n%s", err, out)
	}
	return bin, nil
})

// mockModel starts scripts/mockmodel with args until the test ends and
// returns its address.
func mockModel(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := mockModelBin()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append(args, "--log", filepath.Join(t.TempDir(), "mock.log"))...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("the mock model said %q (%v)", line, err)
	}
	return addr
}

// TestClaudeSSEThinking (issue 32, case 5): Claude-shaped thinking over
// SSE (the mock model's pings, then its answer) is still answered.
func TestClaudeSSEThinking(t *testing.T) {
	t.Parallel()
	idle := scale(60 * time.Second)
	addr := mockModel(t, "--scenario", "T", "--think", (3 * idle).String(), "--ping-every", scale(30*time.Second).String())
	r := runWrapper(t, []string{"CURSOR_WRAP_AGENT=claude", steps("messages", "http://"+addr+"/v1/messages", "exit", "0")}, nil,
		"--restarts", "0", "--idle-timeout", idle.String(), "--", "hello")
	if r.code != 0 || firstRecord(t, r.logDir, "hang_detected") != nil || !bytes.Contains(r.stdout, []byte(`"result":"Hello from the mock model."`)) {
		t.Fatalf("exit %d after %v; stdout %s; stderr %s", r.code, r.took, r.stdout, r.stderr)
	}
	if ev := logRecords(t, r.logDir, "evidence"); len(ev) == 0 {
		t.Errorf("no evidence record says what excused the think")
	}
}
