package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cursor-wrap/watchdog"
)

// TestWaitingOnPerson: an agent stopped at cursor's trust prompt comes back
// as EPERSON, kind person, exit status 85, its message quoting the prompt
// and naming --trust; one that gave up at it and exited 0 the same, with no
// reason record.
func TestWaitingOnPerson(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for _, tail := range [][]string{{"wait-tty"}, {"exit", "0"}} {
		var got failure
		t.Cleanup(func() {
			if t.Failed() {
				files, _ := filepath.Glob(filepath.Join(h.logDir, "*.jsonl"))
				for _, f := range files {
					b, _ := os.ReadFile(f)
					t.Logf("%s:\n%s", f, b)
				}
			}
		})
		res := h.run("", map[string]any{
			"prompt":       steps(append([]string{"line", initLine, "err", "⚠ Workspace Trust Required", "err", "Pass --trust, --yolo, or -f if you trust this directory"}, tail...)...),
			"idle_timeout": "60s",
		}, &got)
		stopped := tail[0] == "wait-tty"
		if !res.IsError || got.Code != codePerson || got.Kind != watchdog.KindPerson || got.ExitStatus != 85 || got.State != stateFailed ||
			(got.Reason != nil) != stopped {
			t.Fatalf("%v: result %+v", tail, got)
		}
		if stopped && !strings.Contains(got.Reason.Question, "Workspace Trust Required") {
			t.Errorf("reason %+v", got.Reason)
		}
		for _, want := range []string{`asked "⚠ Workspace Trust Required … Pass --trust`, "pass --trust (or --yolo / -f)"} {
			if !strings.Contains(got.Message, want) || !strings.Contains(text(res, 0), want) {
				t.Errorf("%v: message %q lacks %q", tail, got.Message, want)
			}
		}
	}
}

// TestWordsAreNoQuestion: a [y/N] log line on the agent's stderr while a
// tool call with a 120 s timeout runs, past the wait for a person, is no
// question: the agent waits on no input, and its answer comes back.
func TestWordsAreNoQuestion(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	started := `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"npm init","timeout":120000}}}}`
	completed := `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{}}`
	var got success
	res := h.run("", map[string]any{
		"prompt":       steps("line", initLine, "line", started, "err", "npm warn: Is this OK? (yes) [y/N]", "sleep", "6s", "line", completed, "line", answerLine, "exit", "0"),
		"idle_timeout": "60s",
	}, &got)
	if res.IsError || got.ExitStatus != 0 {
		t.Errorf("result %+v: %s", got, text(res, 0))
	}
}
