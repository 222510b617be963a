package words

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestDisplay: whatever the agent wrote, what is shown is valid UTF-8 on
// one line, with nothing a terminal would obey and nothing that reorders
// the text.
func TestDisplay(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\x1b]0;title\x07b\r\nc\u202ed\xff": "a ]0;title b c d\uFFFD",
		"\x1b[1;31mred\x1b[0m  and\tplain":   "red and plain",
		"cut short \x1b[12":                  "cut short",
		"\x1b[?25l\u2066isolate\u2069\u200f": "isolate",
		"bell\x07\x7f\u0085c1":               "bell c1",
		"  npm\n test  ":                     "npm test",
		"\xff\xfe":                           "\uFFFD",
		"":                                   "",
	} {
		got := Display(in)
		if got != want {
			t.Errorf("Display(%q) = %q, want %q", in, got, want)
		}
		if !utf8.ValidString(got) || strings.ContainsFunc(got, func(r rune) bool {
			return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
		}) {
			t.Errorf("Display(%q) = %q still holds what a terminal obeys", in, got)
		}
	}
}

func FuzzDisplay(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "\u202e\xff", "x\x1b["} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		got := Cut(Display(s), limit)
		if !utf8.ValidString(got) || strings.ContainsFunc(got, func(r rune) bool {
			return r == '\n' || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
		}) {
			t.Fatalf("Cut(Display(%q), %d) = %q", s, limit, got)
		}
		if n := utf8.RuneCountInString(got); n > max(limit, 0) {
			t.Fatalf("Cut(Display(%q), %d) has %d runes", s, limit, n)
		}
	})
}

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		answer string
		max    int
		want   string
	}{
		{"Hello from the mock model.", 80, "Hello from the mock model."},
		{"Hello from the mock model.", 10, "Hello fro…"},
		{"\n\n  **Plan handoff**: migrate\n\nmore", 80, "**Plan handoff**: migrate"},
		{"\x1b[32mok\x1b[0m\tdone\r\n", 80, "ok done"},
		{"héllo wörld ✓", 7, "héllo…"}, // the space before the cut goes
		{"exactly10!", 10, "exactly10!"},
		{"", 10, ""},
		{"  \n\t\n", 10, ""},
		{"abc", 0, ""},
		{"abc", 1, "…"},
	} {
		if got := FirstLine(tc.answer, tc.max); got != tc.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", tc.answer, tc.max, got, tc.want)
		}
	}
}
