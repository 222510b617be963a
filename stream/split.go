// Package stream turns an agent's output bytes into lines and lines into the
// few facts the watchdog needs: which tool calls opened and closed, the
// session id, whether the agent's answer is complete, and what the agent
// reports it spent.
//
// Bytes are never held back: the caller forwards what it read first and
// hands the same bytes to a Splitter afterwards. The splitter keeps only a
// bounded prefix of each line, so a 64 MiB tool result costs no more memory
// than a short one, and the parser reads only the fields it needs. A Joiner
// between the splitter and the parser puts back together the events an
// agent wrote across lines (string values with raw newlines); it holds
// lines for parsing only.
//
// Profiles also read the agent's final answer (fold every event into a
// Reply) and its errors (Event.Error, Profile.Stderr).
package stream

import "bytes"

// DefaultKeep is how much of one line a Splitter keeps for parsing and
// logging. Cursor puts the envelope keys (type, subtype, call_id) before the
// large tool_call body, and a started event is small, so the facts the
// watchdog needs sit well inside it; the rest of a huge line is counted,
// not kept. It holds a whole answer of MaxAnswer bytes with its envelope.
const DefaultKeep = MaxAnswer + 64<<10

// A Line is one line of agent output as the Splitter saw it.
type Line struct {
	// Text holds the line's first bytes, up to the splitter's keep limit,
	// without the trailing '\n'. It is valid only during the callback.
	Text []byte
	// Len is the line's full length in bytes, without the '\n'.
	Len int64
	// Newline is false only for a final fragment that Flush emitted.
	Newline bool
}

// Truncated reports whether Text holds less than the whole line.
func (l Line) Truncated() bool { return int64(len(l.Text)) < l.Len }

// A Splitter cuts a byte stream into lines of any length. It implements
// io.Writer so the same bytes that were forwarded can be copied into it.
type Splitter struct {
	keep    int
	emit    func(Line)
	partial []byte // kept prefix of the line in progress
	n       int64  // full length of the line in progress
}

// NewSplitter returns a Splitter that calls emit for each complete line,
// keeping at most keep bytes of each.
func NewSplitter(keep int, emit func(Line)) *Splitter {
	return &Splitter{keep: keep, emit: emit}
}

// Write cuts p into lines. It never fails.
func (s *Splitter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.hold(p)
			break
		}
		if s.n == 0 {
			// The whole line is inside p: hand it out without copying.
			t := p[:i]
			if len(t) > s.keep {
				t = t[:s.keep]
			}
			s.emit(Line{Text: t, Len: int64(i), Newline: true})
		} else {
			s.hold(p[:i])
			s.emit(Line{Text: s.partial, Len: s.n, Newline: true})
			s.partial, s.n = s.partial[:0], 0
		}
		p = p[i+1:]
	}
	return total, nil
}

// hold appends a piece of the line in progress, keeping at most keep bytes.
func (s *Splitter) hold(p []byte) {
	s.n += int64(len(p))
	if room := s.keep - len(s.partial); room > 0 {
		if len(p) > room {
			p = p[:room]
		}
		s.partial = append(s.partial, p...)
	}
}

// MidLine reports whether bytes of an unfinished line are pending.
func (s *Splitter) MidLine() bool { return s.n > 0 }

// Pending returns the kept part of the unfinished line, valid until the
// next Write or Flush.
func (s *Splitter) Pending() []byte { return s.partial }

// Flush emits the unfinished line, if any, as a final fragment.
func (s *Splitter) Flush() {
	if s.n == 0 {
		return
	}
	s.emit(Line{Text: s.partial, Len: s.n})
	s.partial, s.n = s.partial[:0], 0
}
