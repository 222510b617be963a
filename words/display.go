package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Display makes text from the agent safe to show a person or a client on
// one line, wherever the wrapper shows it (the status line, MCP progress
// and results, notifications, the run's summary): invalid UTF-8 becomes
// U+FFFD, terminal escape sequences (CSI) go, and other control characters
// and the bidirectional controls, which could move the cursor, retitle a
// window or show text in another order than it has, count as white space;
// each run of white space becomes one space, and the ends are trimmed.
func Display(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b && i+1 < len(s) && s[i+1] == '[':
			i = csiEnd(s, i+2)
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			space = b.Len() > 0
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// csiEnd returns where the control sequence whose parameters start at i
// ends: after its parameter and intermediate bytes and its final byte
// (ECMA-48); a sequence cut short ends at the first byte that cannot be
// in it.
func csiEnd(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// Cut returns s cut to at most max runes, "…" in place of what is left
// out and white space before it trimmed; max ≤ 0 leaves nothing.
func Cut(s string, max int) string {
	switch {
	case max <= 0:
		return ""
	case utf8.RuneCountInString(s) <= max:
		return s
	}
	i := 0
	for range max - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
}

// FirstLine returns the first line of s that has text, as Display shows
// it, cut to at most max runes: what a one-line summary shows of an
// answer or a prompt. A cut line ends in "…", within the max.
func FirstLine(s string, max int) string {
	for l := range strings.Lines(s) {
		if l = Display(l); l != "" {
			return Cut(l, max)
		}
	}
	return ""
}
