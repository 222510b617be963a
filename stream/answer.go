package stream

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// FirstLine returns the first line of an answer that has text, trimmed,
// without terminal escapes or control characters, cut to at most max runes:
// what a one-line summary shows. A cut line ends in "…", within the max.
func FirstLine(answer string, max int) string {
	line := ""
	for l := range strings.Lines(answer) {
		if l = strings.TrimSpace(plain(l)); l != "" {
			line = l
			break
		}
	}
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	if max <= 0 {
		return ""
	}
	i := 0
	for range max - 1 {
		_, size := utf8.DecodeRuneInString(line[i:])
		i += size
	}
	return strings.TrimRightFunc(line[:i], unicode.IsSpace) + "…"
}

// plain drops ANSI escape sequences and control characters (a tab becomes
// a space).
func plain(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
			continue
		case r == '\t':
			b.WriteByte(' ')
		case !unicode.IsControl(r):
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}
