package e2e

import (
	"bytes"
	"os/exec"
	"strconv"
	"testing"

	"github.com/creack/pty"
)

// TestStdoutBeforeStderr: the agent writes 300 lines to stdout, then one
// to stderr (then its result). Through the wrapper the stderr line comes after all 300, into
// one pipe (2>&1) and on a terminal, in each of 20 runs of both. Before
// the wrapper waited for its stdout to be forwarded, the stderr line came
// early in about half the runs into a pipe.
func TestStdoutBeforeStderr(t *testing.T) {
	t.Parallel()
	const runs, lines = 20, 300
	args := []string{"--", "lines", strconv.Itoa(lines), "1000", "err", "the stderr line", "line", resultLine}
	for _, where := range []string{"pipe", "terminal"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			early := 0
			for range runs {
				var out []byte
				if where == "pipe" {
					var both bytes.Buffer
					r := wrapperRun(t, func(cmd *exec.Cmd) { cmd.Stdout, cmd.Stderr = &both, &both }, args...)
					if r.code != 0 {
						t.Fatalf("exit %d:\n%s", r.code, tail(both.Bytes()))
					}
					out = both.Bytes()
				} else {
					out = onTerminal(t, args...)
				}
				before, _, found := bytes.Cut(out, []byte("the stderr line"))
				if !found {
					t.Fatalf("no stderr line in:\n%s", tail(out))
				}
				if n := bytes.Count(before, []byte(`{"type":"thinking"`)); n != lines {
					early++
					t.Logf("the stderr line came after %d stdout lines of %d", n, lines)
				}
			}
			if early > 0 {
				t.Errorf("the stderr line overtook stdout in %d of %d runs", early, runs)
			}
		})
	}
}

// onTerminal runs the wrapper with the fake agent, its stdout and stderr
// on one terminal, and returns what the terminal got.
func onTerminal(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(wrapperBin, append([]string{"--agent-bin", agentBin, "--log-dir", t.TempDir()}, args...)...)
	cmd.Env = testEnv()
	return terminalOutput(t, cmd)
}

// terminalOutput runs cmd with its stdout on a terminal of its own, and
// its stderr too unless cmd has one, and returns what the terminal got;
// the command must succeed.
func terminalOutput(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	cmd.Stdout = pts
	if cmd.Stderr == nil {
		cmd.Stderr = pts
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	var screen bytes.Buffer
	screen.ReadFrom(ptm) // Ends with EIO once the command is gone.
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v:\n%s", cmd.Args[1:], err, tail(screen.Bytes()))
	}
	return screen.Bytes()
}

// tail is the end of a long output, for a failure message.
func tail(b []byte) []byte { return b[max(0, len(b)-2000):] }
