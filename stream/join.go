package stream

import "bytes"

// A Joiner puts back together the events an agent wrote across several
// physical lines, and parses each logical line once.
//
// # Why
//
// Recent cursor-agent builds write string values with literal, unescaped
// newlines: a multi-line markdown result, assistant message or tool output
// is then several physical lines, none of them valid JSON on its own
// (akhayam99/goodboy#1813 measured 23–31% of results lost so, growing with
// the answer's length). Read line by line, the result is missed and a
// finished agent that lingers looks hung; a tool completion is missed and
// its call stays open.
//
// # How
//
// A line that starts an object ('{'), is not JSON, and ends inside a string
// is held; the next lines are joined to it with the "\n" that was between
// them, until the object closes. The joined text is parsed as one logical
// line. A well-formed line costs one parse, as without a Joiner.
//
// The hold ends early, and the held lines come out one by one exactly as
// they would have without a Joiner, when:
//   - a line starts a new event, that is begins with {"type": — every
//     agent's events start so, and a continuation line cannot: it begins
//     inside a string, where a bare '"' is the closing quote, and `type":`
//     cannot follow a closed string;
//   - the joined text closes but still does not parse (it was not one event);
//   - the stream ends (Flush).
//
// A line the Splitter cut (Line.Truncated) never starts a hold: the bytes
// past its cut are gone, so where its strings end is unknown. One that
// arrives while holding ends the hold: the joined text, cut there, is
// parsed as a truncated line (the fields before the cut still count).
//
// # Bounds
//
// The joined text keeps at most keep bytes, like one physical line in the
// Splitter, and for the same reason: the parser and the log need no more.
// Past that the lines are still followed, to find where the object closes,
// but counted, not kept: the logical line is then truncated. At most
// maxHeld lines are remembered one by one for a release; the lines after
// them come out as one text line.
type Joiner struct {
	keep  int
	parse func(Line) Event
	emit  func(Line, Event)

	holding bool
	held    []byte // the held lines joined with "\n", at most keep bytes
	n       int64  // full length of the held text
	lines   []span // the first maxHeld held lines, for a release
	rest    span   // the lines after them, as one, when more is set
	more    bool
	st      strState
}

// maxHeld bounds the held lines remembered one by one: a release is rare
// (a broken event), and must not cost memory per line of a huge output.
const maxHeld = 1024

// span is one held physical line: its kept bytes in held, its length, and
// whether a newline ended it (not so for a final fragment).
type span struct {
	start, end int
	n          int64
	newline    bool
}

// NewJoiner returns a Joiner that parses logical lines with parse and calls
// emit once for each, with its text (valid only during the call) and its
// event. keep bounds the joined text, as in NewSplitter.
func NewJoiner(keep int, parse func(Line) Event, emit func(Line, Event)) *Joiner {
	return &Joiner{keep: keep, parse: parse, emit: emit}
}

// Add takes the next physical line, as the Splitter emits it.
func (j *Joiner) Add(l Line) {
	if j.holding {
		j.cont(l)
		return
	}
	ev := j.parse(l)
	if !ev.NotJSON || l.Truncated() || !j.startsHold(l.Text) {
		j.emit(l, ev)
		return
	}
	j.holding = true
	j.held = j.keepAppend(j.held[:0], l.Text...)
	j.n = l.Len
	j.lines = append(j.lines[:0], span{0, len(j.held), l.Len, l.Newline})
	j.more = false
}

// Holding reports whether lines are held, waiting for their event to close.
func (j *Joiner) Holding() bool { return j.holding }

// Flush ends the stream: held lines come out as they were.
func (j *Joiner) Flush() {
	if j.holding {
		j.release()
	}
}

// startsHold reports whether a line that is not JSON opens an object and
// ends inside one of its strings. It runs only on lines that failed to
// parse, which are rare.
func (j *Joiner) startsHold(text []byte) bool {
	t := bytes.TrimLeft(text, " \t")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	j.st = strState{}
	return j.st.scan(text) < 0 && j.st.inStr
}

// startsEvent is the rule that abandons a hold: see the type doc.
func startsEvent(text []byte) bool { return bytes.HasPrefix(text, []byte(`{"type":`)) }

func (j *Joiner) cont(l Line) {
	if startsEvent(l.Text) {
		j.release()
		j.Add(l)
		return
	}
	j.appendLine(l)
	if l.Truncated() {
		// Where this line's strings end is past the cut: stop here.
		joined := Line{Text: j.held, Len: j.n, Newline: l.Newline}
		if ev := j.parse(joined); ev.Type != "" {
			j.done(joined, ev)
			return
		}
		j.release()
		return
	}
	if j.st.scan(l.Text) < 0 {
		return
	}
	joined := Line{Text: j.held, Len: j.n, Newline: l.Newline}
	if ev := j.parse(joined); !ev.NotJSON {
		j.done(joined, ev)
		return
	}
	j.release()
}

// appendLine adds a physical line to the held text, after the "\n" that
// ended the previous one, keeping at most keep bytes.
func (j *Joiner) appendLine(l Line) {
	start := len(j.held) + 1
	j.held = j.keepAppend(j.held, '\n')
	j.held = j.keepAppend(j.held, l.Text...)
	j.n += 1 + l.Len
	j.st.newline()
	start = min(start, len(j.held))
	switch {
	case len(j.lines) < maxHeld:
		j.lines = append(j.lines, span{start, len(j.held), l.Len, l.Newline})
	case !j.more:
		j.more, j.rest = true, span{start, len(j.held), l.Len, l.Newline}
	default:
		j.rest.end, j.rest.n, j.rest.newline = len(j.held), j.rest.n+1+l.Len, l.Newline
	}
}

func (j *Joiner) keepAppend(b []byte, p ...byte) []byte {
	if room := j.keep - len(b); room < len(p) {
		p = p[:max(room, 0)]
	}
	return append(b, p...)
}

func (j *Joiner) done(joined Line, ev Event) {
	j.holding = false
	j.emit(joined, ev)
	j.held = j.held[:0]
}

// release gives back the held lines one by one, parsed on their own, as
// they would have come without a Joiner.
func (j *Joiner) release() {
	j.holding = false
	for _, s := range j.lines {
		l := Line{Text: j.held[s.start:s.end], Len: s.n, Newline: s.newline}
		j.emit(l, j.parse(l))
	}
	if j.more {
		l := Line{Text: j.held[j.rest.start:j.rest.end], Len: j.rest.n, Newline: j.rest.newline}
		j.emit(l, j.parse(l))
	}
	j.held, j.lines = j.held[:0], j.lines[:0]
}

// strState follows JSON structure across lines: object and array depth,
// and whether the text so far ends inside a string (or just after a
// backslash in one).
type strState struct {
	depth      int
	inStr, esc bool
}

// newline steps over the "\n" between two lines: text inside a string, a
// space outside, and the end of an escape a line ended in.
func (st *strState) newline() { st.esc = false }

// scan advances over b and returns the index just past the byte that
// closes the outermost object, or -1 if it is still open.
func (st *strState) scan(b []byte) int {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if st.inStr {
			switch {
			case st.esc:
				st.esc = false
			case c == '\\':
				st.esc = true
			case c == '"':
				st.inStr = false
			default:
				// Skip to the next byte that can matter inside a string.
				k := bytes.IndexAny(b[i:], `"\`)
				if k < 0 {
					return -1
				}
				i += k - 1
			}
			continue
		}
		switch c {
		case '"':
			st.inStr = true
		case '{', '[':
			st.depth++
		case '}', ']':
			st.depth--
			if st.depth <= 0 {
				return i + 1
			}
		}
	}
	return -1
}
