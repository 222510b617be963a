package stream

import "strings"

// FirstLine returns the first line of an answer that has text, as Display
// shows it, cut to at most max runes: what a one-line summary shows. A cut
// line ends in "…", within the max.
func FirstLine(answer string, max int) string {
	for l := range strings.Lines(answer) {
		if l = Display(l); l != "" {
			return Cut(l, max)
		}
	}
	return ""
}
