package e2e

import (
	"bytes"
	"regexp"
	"testing"
)

// TestHangSaysWhichRule checks the words of a stop as a user reads them:
// with a short --tool-grace, the tool rule's message says it needs the
// idle timeout's silence too and when each part fell due (it read "ran
// 1s of 200ms", as if the wrapper were late); a run stopped by
// --hard-timeout says it timed out, a cap, not that it hung.
func TestHangSaysWhichRule(t *testing.T) {
	t.Parallel()
	call := `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"npm test","timeout":100}}}}`
	r := runWrapper(t, nil, nil, "--idle-timeout", "1s", "--tool-grace", "100ms", "--", "line", initLine, "line", call, "hang")
	tool := regexp.MustCompile(`cursor-wrap: error: hang detected: no output for [\d.]+m?s and every open tool call is past its deadline \(shellToolCall "npm test" ran [\d.]+m?s of 200ms\); ` +
		`the tool rule needs both: the deadlines passed [\d.]+m?s before the verdict, and the silence reached the idle timeout of 1s at the verdict; stopping the agent's process group\n`)
	if r.code != 124 || !tool.Match(r.stderr) {
		t.Errorf("tool rule: exit %d, stderr:\n%s", r.code, r.stderr)
	}

	r = runWrapper(t, nil, nil, "--hard-timeout", "1s", "--", "line", initLine, "line", call, "hang")
	want := "cursor-wrap: error: the attempt timed out at its hard timeout of 1s, a cap on its time whatever it was doing; stopping the agent's process group\n"
	if r.code != 124 || !bytes.Contains(r.stderr, []byte(want)) || bytes.Contains(r.stderr, []byte("hang")) ||
		!bytes.Contains(r.stderr, []byte("timed out (hard_timeout) and was killed after 1")) {
		t.Errorf("hard timeout: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
