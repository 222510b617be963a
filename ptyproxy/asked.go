package ptyproxy

import (
	"time"

	"cursor-wrap/stream"
)

// The session loop's ear for questions only a person can answer: the last
// of what the agent writes that is not its stream (text on its terminal,
// its stderr) is kept, and the profile says whether it asks one.

// heard keeps a line the agent wrote that is not its stream.
func heard(tail *[]byte, text []byte) {
	*tail = append(append(*tail, stream.Tail(text)...), '\n')
	*tail = append((*tail)[:0], stream.Tail(*tail)...)
}

// forget drops what the agent wrote before an event of its stream read at
// at: it is past any question it asked there. Its stderr goes only when
// it was read well before the event: the two are read by goroutines of
// their own, so the order of two writes close in time is not known.
func (l *loop) forget(at time.Time) {
	l.said = l.said[:0]
	if l.errAt.Before(at.Add(-crossRead)) {
		l.errSaid, l.errPending = l.errSaid[:0], l.errPending[:0]
	}
}

// crossRead is how far apart the reads of stdout and stderr must be for
// their order to count as the agent's.
const crossRead = time.Second

// listen tells the watchdog whether the agent's last words, written at
// at, ask a person something.
func (l *loop) listen(at time.Time) {
	if l.o.Asks == nil || l.end.phase != Running {
		return
	}
	l.wd.Asked(l.question(true), at)
}

// question is the question the agent's last words ask, nil if none. Its
// stdout counts only when asked: text on stdout that the agent exits after
// is its answer, however it reads, unless the agent streams events.
func (l *loop) question(stdout bool) *stream.Question {
	if len(l.errSaid)+len(l.errPending) > 0 {
		l.words = append(append(l.words[:0], l.errSaid...), stream.Tail(l.errPending)...)
		if q := l.o.Asks(l.words); q != nil {
			return q
		}
	}
	pending := l.split.Pending()
	if l.join != nil && len(pending) > 0 && pending[0] == '{' {
		pending = nil // An event on its way, not words.
	}
	if !stdout || len(l.said)+len(pending) == 0 {
		return nil
	}
	l.words = append(append(l.words[:0], l.said...), stream.Tail(pending)...)
	return l.o.Asks(l.words)
}

// leftAsking notes the question an agent that exited by itself without its
// answer left behind, if any.
func (l *loop) leftAsking() {
	if l.o.Asks == nil || l.out.Cause != Exited || l.wd.Done() {
		return
	}
	l.out.Question = l.question(l.join != nil)
}
