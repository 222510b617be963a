package stream

import (
	"strings"
	"testing"
)

// TestQuestionSamples holds every agent's questions to their samples: each
// is recognised, as written, with escape sequences and a carriage return
// around it, and quoted.
func TestQuestionSamples(t *testing.T) {
	for _, p := range profiles {
		for _, q := range p.questions {
			for _, text := range []string{q.Sample, "\x1b[33m" + q.Sample + "\x1b[0m", "working…\r" + q.Sample, "some earlier output\n" + q.Sample + "\n\n"} {
				got := p.Asks([]byte(text))
				if got == nil || got.Fix == "" || got.Quote == "" {
					t.Errorf("%s: %q not recognised (%v)", p.Name, text, got)
				}
			}
		}
	}
}

// TestQuestionNearMisses: what is not a question at the bottom of the
// screen is none: words about one, a question scrolled up by the agent's
// further output, an unknown question, nothing.
func TestQuestionNearMisses(t *testing.T) {
	for _, text := range []string{
		"",
		"Pick a colour (red/blue):",
		"The workspace is trusted; go on.",
		"Apply these changes? [y/N]\n" + strings.Repeat("more output\n", questionLines),
		strings.Repeat("x", 2*questionTail),
	} {
		if q := Cursor.Asks([]byte(text)); q != nil {
			t.Errorf("%q: asks %+v", text, q)
		}
	}
}

// TestQuestionScrolledUp: a question the agent's later lines pushed up
// the screen asks nothing, even when all of it is within the bytes kept:
// ten short lines after it are more than the lines read.
func TestQuestionScrolledUp(t *testing.T) {
	text := "Apply these changes? [y/N]\n" + strings.Repeat("ok\n", 10)
	if len(text) > questionTail {
		t.Fatalf("the test's text (%d bytes) is longer than the %d kept", len(text), questionTail)
	}
	if q := Cursor.Asks([]byte(text)); q != nil {
		t.Errorf("a question ten lines up asks %+v", q)
	}
	if q := Cursor.Asks([]byte(strings.Repeat("ok\n", 10) + "Apply these changes? [y/N]\n")); q == nil {
		t.Errorf("the same question at the bottom asks nothing")
	}
}

// TestQuestionQuote: the quote is the line that asks and the last line,
// on one line, so the fix can be named after it.
func TestQuestionQuote(t *testing.T) {
	q := Cursor.Asks([]byte("⚠ Workspace Trust Required\n\nThis folder is new.\nPass --trust, --yolo, or -f if you trust this directory\n"))
	want := "⚠ Workspace Trust Required … Pass --trust, --yolo, or -f if you trust this directory"
	if q == nil || q.Quote != want || !strings.Contains(q.Fix, "--trust") {
		t.Errorf("got %+v, want quote %q", q, want)
	}
}

// FuzzAsks: any text is read without a panic, and a question found is
// quoted on one bounded line.
func FuzzAsks(f *testing.F) {
	for _, q := range cursorQuestions {
		f.Add([]byte(q.Sample))
	}
	f.Add([]byte("\x1b[\r\n[y/n]\xff"))
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, p := range profiles {
			q := p.Asks(text)
			if q != nil && (strings.ContainsAny(q.Quote, "\r\n") || len([]rune(q.Quote)) > 2*quoteMax+3) {
				t.Errorf("%s: quote %q", p.Name, q.Quote)
			}
		}
	})
}

// TestTail: the caller keeps what Asks reads of a terminal's last words,
// the last questionTail bytes, and all of shorter text.
func TestTail(t *testing.T) {
	t.Parallel()
	long := []byte(strings.Repeat("x", 3*questionTail) + "Allow execution? (y/n) ")
	if got := Tail(long); len(got) != questionTail || !strings.HasSuffix(string(got), "Allow execution? (y/n) ") {
		t.Errorf("Tail of %d bytes: %d bytes, ending %q", len(long), len(got), got[max(0, len(got)-30):])
	}
	if got := Tail([]byte("(y/n) ")); string(got) != "(y/n) " {
		t.Errorf("Tail of a short text: %q", got)
	}
}
