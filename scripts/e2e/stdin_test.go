package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestSilentStdin: with the prompt in the args, a stdin pipe left open
// that gives nothing (a CI step's, a spawn's default) is closed to the
// agent after stdin_wait, with one line saying so; piped context that
// comes, however slowly, arrives whole; a prompt on stdin is waited for.
// The fake agent's "stdin" step reads stdin to its end before it answers,
// as codex exec, opencode run and gemini -p do.
func TestSilentStdin(t *testing.T) {
	t.Parallel()
	const gaveUp = "stdin gave nothing for"
	t.Run("an open pipe that gives nothing", func(t *testing.T) {
		t.Parallel()
		pr, pw := pipe(t)
		// Held open, never written: without the rule the agent waits on it
		// until the idle timeout kills it (124).
		defer pw.Close()
		r := wrapperRun(t, func(cmd *exec.Cmd) { cmd.Stdin = pr }, "--idle-timeout", "30s", "--", "stdin", "line", resultLine)
		if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"bytes":0`)) ||
			!bytes.Contains(r.stderr, []byte(gaveUp+" 3s and the prompt is in the args: closing the agent's stdin (--stdin-wait 0 waits for its end)")) {
			t.Errorf("exit %d; stdout %s; stderr %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("a slow trickle arrives whole", func(t *testing.T) {
		t.Parallel()
		pr, pw := pipe(t)
		// The first piece after 500ms, within stdin_wait; the pauses after
		// it are longer than stdin_wait.
		pieces := [][]byte{[]byte("first\n"), bytes.Repeat([]byte("x"), 100_000), []byte("last\n")}
		go func() {
			defer pw.Close()
			for i, p := range pieces {
				time.Sleep([]time.Duration{500 * time.Millisecond, 2500 * time.Millisecond, 2500 * time.Millisecond}[i])
				if _, err := pw.Write(p); err != nil {
					return
				}
			}
		}()
		r := wrapperRun(t, func(cmd *exec.Cmd) { cmd.Stdin = pr }, "--stdin-wait", "2s", "--", "stdin", "line", resultLine)
		sum := sha256.Sum256(bytes.Join(pieces, nil))
		if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"sha256":"`+hex.EncodeToString(sum[:])+`"`)) || bytes.Contains(r.stderr, []byte(gaveUp)) {
			t.Errorf("exit %d; stdout %s; stderr %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("a prompt on stdin is waited for", func(t *testing.T) {
		t.Parallel()
		pr, pw := pipe(t)
		go func() {
			defer pw.Close()
			time.Sleep(1500 * time.Millisecond) // longer than stdin_wait
			pw.Write([]byte("say hi\n"))
		}()
		r := wrapperRun(t, func(cmd *exec.Cmd) {
			cmd.Stdin = pr
			cmd.Env = append(cmd.Env, steps("stdin", "line", resultLine))
		}, "--stdin-wait", "500ms")
		sum := sha256.Sum256([]byte("say hi\n"))
		if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"sha256":"`+hex.EncodeToString(sum[:])+`"`)) || bytes.Contains(r.stderr, []byte(gaveUp)) {
			t.Errorf("exit %d; stdout %s; stderr %s", r.code, r.stdout, r.stderr)
		}
	})
}

// pipe is an os.Pipe whose ends are closed when the test ends.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}
