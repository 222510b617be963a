package e2e

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"
)

// Questions only a person can answer (issue 24, point 4): an agent that
// asks one and waits for the answer is stopped within 10 s of the
// question's last byte, with exit 85 and one line that quotes it and
// names the fix, and is never restarted into it; words that merely quote
// such a question never stop a run.

const trustPrompt = "⚠ Workspace Trust Required"
const trustFix = "Pass --trust, --yolo, or -f if you trust this directory"

// recordTime is when the wrapper wrote the first record named msg (the
// last one when last is set).
func recordTime(t *testing.T, dir, msg string, last bool) time.Time {
	t.Helper()
	var at time.Time
	for _, rec := range readLogs[map[string]any](t, dir) {
		if rec["msg"] != msg {
			continue
		}
		s, _ := rec["time"].(string)
		at, _ = time.Parse(time.RFC3339Nano, s)
		if !last {
			break
		}
	}
	if at.IsZero() {
		t.Fatalf("no %s record with a time", msg)
	}
	return at
}

// TestTrustPromptStops: cursor's trust prompt on stderr, then a wait to
// read its terminal, in a run with restarts to spare: one attempt, stopped within 10 s of the
// prompt as the wrapper's own log saw it, exit 85, a hang record of kind
// person that quotes it, and one console line that names --trust.
func TestTrustPromptStops(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("err", trustPrompt, "err", "", "err", trustFix, "wait-tty")}, nil,
		"--restarts", "2", "--idle-timeout", "60s", "--", "fix it")
	rec := firstRecord(t, r.logDir, "hang_detected")
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*.jsonl"))
	if r.code != 85 || rec == nil || len(logs) != 1 {
		t.Fatalf("exit %d, %d logs, record %v; stderr %s", r.code, len(logs), rec, r.stderr)
	}
	reason, _ := rec["reason"].(map[string]any)
	if reason["kind"] != "person" || !bytes.Contains([]byte(reason["question"].(string)), []byte(trustPrompt)) {
		t.Errorf("reason %v", reason)
	}
	took := recordTime(t, r.logDir, "hang_detected", false).Sub(recordTime(t, r.logDir, "stderr", true))
	t.Logf("stopped %s after the prompt's last line, as the wrapper's log saw it", took)
	if took > 10*time.Second {
		t.Errorf("stopped %s after the prompt, want within 10s", took)
	}
	if n := bytes.Count(r.stderr, []byte("pass --trust")); n != 1 || !bytes.Contains(r.stderr, []byte("waiting on a person")) {
		t.Errorf("%d lines naming --trust; stderr %s", n, r.stderr)
	}
	// sessions and inspect say it too.
	if s := runRaw(t, nil, "sessions", "--log-dir", r.logDir); !bytes.Contains(s.stdout, []byte("waiting on a person")) {
		t.Errorf("sessions: %s", s.stdout)
	}
	if s := runRaw(t, nil, "inspect", "--last", "--log-dir", r.logDir); !bytes.Contains(s.stdout, []byte("verdict  waiting on a person")) || !bytes.Contains(s.stdout, []byte("pass --trust")) {
		t.Errorf("inspect: %s", s.stdout)
	}
}

// TestPromptOnTheTerminal: a [y/N] question the agent leaves on its
// terminal without a newline, then waits on, in text mode through the
// alias, is stopped too: exit 85 in both modes, since the wrapper acted.
func TestPromptOnTheTerminal(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("line", "Planning the change.", "raw", "Apply these changes? [y/N] ", "wait-tty")}, nil,
		"--alias", "--idle-timeout", "60s", "--", "-p", "fix it")
	if r.code != 85 || string(r.stdout) != "Planning the change.\nApply these changes? [y/N] " || !bytes.Contains(r.stderr, []byte(`asked "Apply these changes? [y/N]"`)) {
		t.Errorf("exit %d, stdout %q; stderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestUnknownPromptIsIdle: a question no profile knows falls to the idle
// rule.
func TestUnknownPromptIsIdle(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("err", "Pick a colour (red/blue):", "hang")}, nil, "--idle-timeout", "1s", "--", "fix it")
	rec := firstRecord(t, r.logDir, "hang_detected")
	if r.code != 124 || rec == nil || rec["reason"].(map[string]any)["kind"] != "idle" {
		t.Errorf("exit %d, record %v; stderr %s", r.code, rec, r.stderr)
	}
}

// TestQuotedPromptDoesNotStop: an answer that quotes the trust prompt
// inside a stream event, then a pause longer than the wait for a person,
// is not stopped; nor is an agent that wrote the words on stderr and went
// on with its stream, nor a text-mode answer that quotes them, followed
// by the agent's exit.
func TestQuotedPromptDoesNotStop(t *testing.T) {
	t.Parallel()
	t.Run("inside an event", func(t *testing.T) {
		t.Parallel()
		quoted := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + trustPrompt + `\n` + trustFix + `"}]},"session_id":"s-1"}`
		r := runWrapper(t, []string{steps("line", initLine, "line", quoted, "sleep", "7s", "line", resultLine, "exit", "0")}, nil,
			"--idle-timeout", "60s", "--", "fix it")
		if r.code != 0 || firstRecord(t, r.logDir, "hang_detected") != nil || bytes.Contains(r.stderr, []byte("waiting on a person")) {
			t.Errorf("exit %d; stderr %s", r.code, r.stderr)
		}
	})
	t.Run("on stderr, then the stream goes on", func(t *testing.T) {
		t.Parallel()
		// The agent did not wait: its events after the words are read
		// well after them (a second apart: reads of stdout and stderr
		// closer than that are not ordered), then it thinks in silence.
		r := runWrapper(t, []string{steps("err", trustPrompt, "err", trustFix, "sleep", "1500ms", "line", initLine, "sleep", "7s", "line", resultLine, "exit", "0")}, nil,
			"--idle-timeout", "60s", "--", "fix it")
		if r.code != 0 || firstRecord(t, r.logDir, "hang_detected") != nil {
			t.Errorf("exit %d; stderr %s", r.code, r.stderr)
		}
	})
	t.Run("text mode, then exit", func(t *testing.T) {
		t.Parallel()
		r := runWrapper(t, []string{steps("line", trustPrompt, "line", trustFix, "exit", "0")}, nil,
			"--", "-p", "--output-format", "text", "what does the trust prompt say?")
		if r.code != 0 || bytes.Contains(r.stderr, []byte("waiting on a person")) {
			t.Errorf("exit %d; stderr %s", r.code, r.stderr)
		}
	})
}

// TestRefusalExitZero: an agent that refuses at the trust prompt and exits
// 0 (escoffier-labs/brigade#205) failed: 85 in direct mode; through the
// alias its own status stands. Both print the line.
func TestRefusalExitZero(t *testing.T) {
	t.Parallel()
	agent := []string{steps("err", trustPrompt, "err", trustFix, "exit", "0")}
	r := runWrapper(t, agent, nil, "--", "fix it")
	if r.code != 85 || !bytes.Contains(r.stderr, []byte("pass --trust")) {
		t.Errorf("direct: exit %d; stderr %s", r.code, r.stderr)
	}
	r = runWrapper(t, agent, nil, "--alias", "--", "-p", "--output-format", "stream-json", "fix it")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("pass --trust")) {
		t.Errorf("alias: exit %d; stderr %s", r.code, r.stderr)
	}
}

// TestPersonNotified: a webhook that asks for errors is told the agent
// waits on a person, quoting the question and naming the fix.
func TestPersonNotified(t *testing.T) {
	t.Parallel()
	h := newHook(t)
	r := runWrapper(t, []string{"CURSOR_WRAP_NOTIFY=" + h.URL, steps("err", trustPrompt, "err", trustFix, "exit", "0")}, nil,
		"--notify-on", "error", "--", "fix it")
	got := h.received()
	if r.code != 85 || len(got) != 1 || !bytes.Contains(got[0], []byte("waiting on a person")) || !bytes.Contains(got[0], []byte("pass --trust")) {
		t.Errorf("exit %d, received %q; stderr %s", r.code, got, r.stderr)
	}
}
