package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The agents as they are in the wild (docs/in-the-wild.md), through the
// built binary: each case with a fake agent that reproduces it byte for
// byte from stream/testdata/wild.

func wild(name string) string {
	p, _ := filepath.Abs(filepath.Join("stream", "testdata", "wild", name))
	return p
}

// TestWildMultiLine: a result written across several lines, then the agent
// lingers: it answered (exit 0, stopped after its answer), it is not a
// hang, stdout is byte for byte, and the summary shows the answer's first
// line.
func TestWildMultiLine(t *testing.T) {
	t.Parallel()
	want, _ := os.ReadFile(wild("cursor-multiline-result.jsonl"))
	r := runWrapper(t, nil, nil, "--exit-grace", "300ms", "--idle-timeout", "3s", "--", "replay", wild("cursor-multiline-result.jsonl"), "1000000", "hang")
	if r.code != 0 || !bytes.Equal(r.stdout, want) || firstRecord(t, r.logDir, "exit_overdue") == nil {
		t.Errorf("exit %d, stdout identical %v; stderr %s", r.code, bytes.Equal(r.stdout, want), r.stderr)
	}
}

// TestWildLeftovers: what the agent leaves running when it exits by itself
// is stopped and named in the summary, or, with keep_orphans, left alone.
func TestWildLeftovers(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, nil, nil, "--", "setsid-child", "line", resultLine, "exit", "0")
	pid := childOf(t, r.stdout)
	rec := firstRecord(t, r.logDir, "leftovers")
	if r.code != 0 || alive(pid) || rec == nil || !bytes.Contains(r.stderr, []byte("stopped 1 leftover process: fakeagent … ignore")) {
		t.Errorf("exit %d, alive %v, record %v; stderr %s", r.code, alive(pid), rec, r.stderr)
	}

	r = runWrapper(t, nil, nil, "--keep-orphans", "--", "setsid-child", "line", resultLine, "exit", "0")
	pid = childOf(t, r.stdout)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if r.code != 0 || !alive(pid) || !bytes.Contains(r.stderr, []byte("left running 1 leftover process")) {
		t.Errorf("keep_orphans: exit %d, alive %v; stderr %s", r.code, alive(pid), r.stderr)
	}
}

// TestWildErrors: an agent that says it cannot go on gets an agent_error
// record and one line that says what to do; a rate limit with a stated
// wait is restarted after it, an auth error never.
func TestWildErrors(t *testing.T) {
	t.Parallel()
	t.Run("rate limit, restarted after its wait", func(t *testing.T) {
		t.Parallel()
		// The first attempt is rate-limited and fails; the restart (a
		// resume of s-1) answers.
		r := runWrapper(t, []string{steps("resumed-answer", "line", initLine,
			"line", "Error: S: [resource_exhausted] Error. Please try again in 1s.", "exit", "1")}, nil, "--restarts", "1", "--", "fix it")
		rec := firstRecord(t, r.logDir, "agent_error")
		if r.code != 0 || rec == nil || rec["kind"] != "rate_limit" || !bytes.Contains(r.stderr, []byte("waiting 1s first")) {
			t.Errorf("exit %d, record %v; stderr %s", r.code, rec, r.stderr)
		}
	})
	t.Run("rate limit with a wait past any clock, not restarted", func(t *testing.T) {
		t.Parallel()
		// 1e20 days does not fit a Duration: it must read as too long to
		// wait, not wrap to a negative wait and restart at once.
		r := runWrapper(t, []string{steps("resumed-answer", "line", initLine,
			"line", "Error: S: [resource_exhausted] Error. Please try again in 100000000000000000000 days.", "exit", "1")}, nil, "--restarts", "1", "--", "fix it")
		if r.code != 80 || !bytes.Contains(r.stderr, []byte("not restarting: the agent asks to wait")) {
			t.Errorf("exit %d; stderr %s", r.code, r.stderr)
		}
	})
	t.Run("not logged in, never restarted", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, []string{"CURSOR_WRAP_AGENT=claude", steps("replay", wild("claude-not-logged-in.jsonl"), "1000000", "exit", "1")}, nil,
			"--restarts", "2", "--", "hello")
		rec := firstRecord(t, r.logDir, "agent_error")
		if r.code != 83 || rec == nil || rec["kind"] != "auth" || bytes.Contains(r.stderr, []byte("restarting")) || !bytes.Contains(r.stderr, []byte("(auth)")) {
			t.Errorf("exit %d, record %v; stderr %s", r.code, rec, r.stderr)
		}
	})
	t.Run("rate limit through the shell functions keeps the agent's status", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, []string{"CURSOR_WRAP_SHELL_FUNC=cursor-agent"}, nil, "--alias", "--",
			"-p", "err", "Error: S: [resource_exhausted] Error.", "exit", "3")
		if r.code != 3 || firstRecord(t, r.logDir, "agent_error") == nil {
			t.Errorf("exit %d; stderr %s", r.code, r.stderr)
		}
	})
}

// TestWildResumeFails: the session to resume is gone (the agent's store was
// cleaned): the resumed attempt fails before writing anything, and the
// original command runs again, which says so.
func TestWildResumeFails(t *testing.T) {
	t.Parallel()
	once := filepath.Join(t.TempDir(), "once")
	r := runWrapper(t, []string{steps("fail-if-resumed", "line", initLine, "hang-once", once, "line", resultLine)}, nil,
		"--restarts", "1", "--idle-timeout", "1s", "--", "fix it")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("resuming the session failed before the agent wrote anything")) {
		t.Errorf("exit %d; stderr %s", r.code, r.stderr)
	}
}

// TestWildTextModeBusy: --output-format text prints nothing until the end;
// a silent agent that works (CPU) is not killed at the idle timeout, in
// byte-watching mode as in stream-json mode.
func TestWildTextModeBusy(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{"CURSOR_WRAP_SHELL_FUNC=cursor-agent"}, nil, "--alias", "--idle-timeout", "2s", "--max-silence", "2m",
		"--", "-p", "--output-format", "text", "burn", "30s", "line", "All done.")
	if r.code != 0 || firstRecord(t, r.logDir, "hang_detected") != nil || !strings.Contains(string(r.stdout), "All done.") {
		t.Errorf("exit %d after %v; stderr %s", r.code, r.took, r.stderr)
	}
}

// TestWildFallbackModels: a restart after a hang moves to the next of
// fallback_models, and the summary says which model answered.
func TestWildFallbackModels(t *testing.T) {
	t.Parallel()
	once := filepath.Join(t.TempDir(), "once")
	r := runWrapper(t, []string{steps("args", "line", initLine, "hang-once", once, "line", `{"type":"result","subtype":"success","result":"done"}`)}, nil,
		"--restarts", "1", "--idle-timeout", "1s", "--fallback-models", "model-b,model-c", "--", "fix it")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("with the next fallback model, model-b")) || !bytes.Contains(r.stderr, []byte(`answer "done" from fallback model model-b`)) {
		t.Errorf("exit %d; stderr %s", r.code, r.stderr)
	}
	// The second attempt's command line asks for model-b.
	if !bytes.Contains(r.stdout, []byte(`"--model","model-b"`)) {
		t.Errorf("stdout %s", r.stdout)
	}
}
