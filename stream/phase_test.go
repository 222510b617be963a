package stream

import (
	"os"
	"strings"
	"testing"
)

// TestPhaseWords holds each profile's phase words to its captured streams:
// every label or type a profile lists is one its agent wrote there.
func TestPhaseWords(t *testing.T) {
	t.Parallel()
	for _, p := range profiles {
		seen := map[string]bool{}
		captures := capturesOf(t, p)
		for _, file := range captures {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.Lines(string(data)) {
				line = strings.TrimSuffix(line, "\n")
				label := p.Parse(Line{Text: []byte(line), Len: int64(len(line)), Newline: true}).Label()
				typ, _, _ := strings.Cut(label, "/")
				seen[label], seen[typ] = true, true
			}
		}
		if len(p.phases) == 0 {
			t.Errorf("%s has no phase words", p.Name)
		}
		for word := range p.phases {
			if !seen[word] {
				t.Errorf("%s: phase word %q is in none of %q", p.Name, word, captures)
			}
		}
	}
}

func TestPhase(t *testing.T) {
	t.Parallel()
	for i, c := range []struct {
		p     *Profile
		label string
		want  Phase
	}{
		{Cursor, "system/init", SessionOpened},
		{Cursor, "thinking/delta", Thinking},
		{Cursor, "thinking/completed", Thinking},
		{Cursor, "tool_call/completed", ModelsTurn},
		{Cursor, "tool_call/started", Busy},
		{Cursor, "text", Busy}, // a line that is not JSON
		{Claude, "assistant", Writing},
		{Claude, "system/api_retry", Busy},
		{Codex, "thread.started", SessionOpened},
		{Codex, "turn.started", ModelsTurn},
		{Gemini, "init", SessionOpened},
		{Gemini, "tool_result", ModelsTurn},
		{OpenCode, "step_start", ModelsTurn},
		{OpenCode, "text", Writing},
		{nil, "assistant", Busy},
	} {
		if got := c.p.Phase(c.label); got != c.want {
			t.Errorf("step %d: Phase(%q) = %v, want %v", i, c.label, got, c.want)
		}
	}
}
