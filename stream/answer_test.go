package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// finalAnswer runs a stream through a profile as the proxy does (splitter,
// joiner, parser) and folds every event's answer into one Reply. It also
// returns the answer the terminal event alone carries.
func finalAnswer(t *testing.T, p *Profile, data []byte) (reply, terminal string) {
	t.Helper()
	var r Reply
	j := NewJoiner(DefaultKeep, p.Parse, func(_ Line, ev Event) {
		r.Add(ev)
		if ev.Terminal {
			terminal = ev.Answer
		}
	})
	s := NewSplitter(DefaultKeep, j.Add)
	s.Write(data)
	s.Flush()
	j.Flush()
	return r.String(), terminal
}

// TestFinalAnswers checks that folding every event of a run through Reply
// gives the agent's final answer, for every capture of every agent. Codex,
// Gemini CLI and opencode put it on earlier events, not on the terminal one:
// keeping the terminal event's answer alone loses it.
func TestFinalAnswers(t *testing.T) {
	t.Parallel()
	const hello = "Hello from the mock model."
	const answerB = "The command `sleep 20` finished. Done."
	want := map[string]string{
		"claude-A": hello, "claude-A-pty": hello, "claude-B": answerB, "claude-C": "",
		"codex-A": hello, "codex-B": answerB, "codex-C-idle20s": "",
		"gemini-A": hello, "gemini-B": answerB, "gemini-C": "HelloHelloHelloHello",
		"opencode-A": hello, "opencode-B": answerB, "opencode-C": "",
	}
	files, _ := filepath.Glob("testdata/agents/*.jsonl")
	if len(files) != len(want) {
		t.Errorf("%d captures, %d expectations: add the new capture's answer here", len(files), len(want))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		p, err := ProfileNamed(name[:strings.IndexByte(name, '-')])
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		reply, terminal := finalAnswer(t, p, data)
		if w, ok := want[name]; !ok || reply != w {
			t.Errorf("%s: answer %q, want %q", name, reply, w)
		}
		if p != Claude && strings.HasSuffix(name, "-A") && terminal != "" {
			t.Errorf("%s: the terminal event carries the answer %q; the test's premise changed", name, terminal)
		}
	}

	// Cursor's answer is the result's text, whole, also when the result
	// spans lines.
	cursor, _ := filepath.Glob("testdata/*.jsonl")
	wild, _ := filepath.Glob("testdata/wild/cursor-multiline-*.jsonl")
	for _, file := range append(cursor, wild...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var w string
		for line := range bytes.Lines(escapedNewlines(data)) {
			var ev struct{ Type, Result string }
			if json.Unmarshal(line, &ev) == nil && ev.Type == "result" {
				w = ev.Result
			}
		}
		if reply, _ := finalAnswer(t, Cursor, data); reply == "" || reply != w {
			t.Errorf("%s: answer %q, want %q", file, reply, w)
		}
	}
}

// TestAnswerBounded: an answer is kept whole up to MaxAnswer, then cut with
// a marker that says how much was dropped, for every profile, whether it
// comes as deltas (Gemini: a million of them must not grow memory), as one
// whole answer, or as a line longer than the splitter keeps.
func TestAnswerBounded(t *testing.T) {
	t.Parallel()
	const keep = 1 << 10                         // a small splitter keep, to cut lines cheaply
	long := strings.Repeat("é", 700) + "the end" // 1407 bytes: past keep in any envelope
	for _, tc := range []struct {
		p    *Profile
		line string
	}{
		{Cursor, `{"type":"result","subtype":"success","is_error":false,"result":"` + long + `","session_id":"s"}`},
		{Claude, `{"type":"result","subtype":"success","is_error":false,"result":"` + long + `","session_id":"s"}`},
		{Codex, `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"` + long + `"}}`},
		{Gemini, `{"type":"message","role":"assistant","content":"` + long + `","delta":true}`},
		{OpenCode, `{"type":"text","sessionID":"s","part":{"messageID":"m","text":"` + long + `"}}`},
	} {
		var r Reply
		j := NewJoiner(keep, tc.p.Parse, func(_ Line, ev Event) { r.Add(ev) })
		s := NewSplitter(keep, j.Add)
		s.Write([]byte(tc.line + "\n"))
		j.Flush()
		got := r.String()
		body, marker, ok := strings.Cut(got, "\n[cursor-wrap: the answer was cut here, at ")
		if !ok || !strings.HasPrefix(long, body) || len(body) < keep/2 || !utf8.ValidString(body) {
			t.Errorf("%s: a line cut at %d bytes gave the answer %q", tc.p.Name, keep, got)
			continue
		}
		if want := fmt.Sprintf("%d bytes; about %d more were dropped]", len(body), len(tc.line)-keep); marker != want {
			t.Errorf("%s: marker %q, want %q", tc.p.Name, marker, want)
		}
	}

	// A million Gemini deltas: the reply stops growing at MaxAnswer.
	var r Reply
	delta := Event{Answer: strings.Repeat("x", 99) + "\n", AnswerDelta: true}
	for range 1_000_000 {
		r.Add(delta)
	}
	if cap(r.text) > 2*MaxAnswer || len(r.text) != MaxAnswer {
		t.Errorf("after a million deltas the reply holds %d bytes (cap %d)", len(r.text), cap(r.text))
	}
	if want := fmt.Sprintf("about %d more were dropped]", 100_000_000-MaxAnswer); !strings.HasSuffix(r.String(), want) {
		t.Errorf("marker %q, want …%q", r.String()[MaxAnswer:], want)
	}
	// A whole answer after that replaces all of it, marker included.
	r.Add(Event{Answer: "done"})
	if r.String() != "done" {
		t.Errorf("a whole answer after a cut one: %q", r.String())
	}
}

// TestCutEnd: a string cut inside an escape or a UTF-8 sequence decodes
// without it.
func TestCutEnd(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`abc\`: `abc`, `abc\u00`: `abc`, `abc\u`: `abc`, `abc\\`: `abc\\`, `abc\\\`: `abc\\`,
		`abc\n`: `abc\n`, `abc\u00e9`: `abc\u00e9`, `abc\\u00`: `abc\\u00`, `abc`: `abc`, ``: ``,
		"ab\xc3": "ab", "\xc3": "", "ab\xe2\x82": "ab", "ab\xe2\x82\xac": "ab\xe2\x82\xac", "é": "é", `a\"\`: `a\"`,
	} {
		if got := string(cutEnd([]byte(raw))); got != want {
			t.Errorf("cutEnd(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestAnswerCutBetweenRunes: an answer longer than MaxAnswer is cut
// before a character the bound falls inside, never in it.
func TestAnswerCutBetweenRunes(t *testing.T) {
	t.Parallel()
	var r Reply
	r.Add(Event{Answer: strings.Repeat("a", MaxAnswer-1) + "é!"})
	body, marker, _ := strings.Cut(r.String(), "\n[cursor-wrap: ")
	if body != strings.Repeat("a", MaxAnswer-1) {
		t.Errorf("kept %d bytes ending %q", len(body), body[max(0, len(body)-4):])
	}
	if want := fmt.Sprintf("the answer was cut here, at %d bytes; about 3 more were dropped]", MaxAnswer-1); marker != want {
		t.Errorf("marker %q, want %q", marker, want)
	}
	// One that fills the bound exactly is whole, and says nothing of a cut.
	r.Add(Event{Answer: strings.Repeat("é", MaxAnswer/2)})
	if got := r.String(); got != strings.Repeat("é", MaxAnswer/2) {
		t.Errorf("an answer of MaxAnswer bytes: %d bytes, ending %q", len(got), got[max(0, len(got)-20):])
	}
}

// TestCutAnswerDecoded: the kept part of a cut answer is decoded, from its
// first byte: an answer that opens with an escape reads as the character.
func TestCutAnswerDecoded(t *testing.T) {
	t.Parallel()
	const keep = 1 << 10
	line := `{"type":"result","subtype":"success","result":"\"` + strings.Repeat("x", 2*keep) + `","session_id":"s"}`
	ev := Cursor.Parse(Line{Text: []byte(line[:keep]), Len: int64(len(line)), Newline: true})
	if !strings.HasPrefix(ev.Answer, `"xxx`) || ev.AnswerDropped != int64(len(line)-keep) {
		t.Errorf("answer %.20q…, dropped %d; want it to open with the quote, %d dropped", ev.Answer, ev.AnswerDropped, len(line)-keep)
	}
}
