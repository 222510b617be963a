package ptyproxy

import (
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// The session loop's ear for questions only a person can answer: the last
// of what the agent writes that is not its stream (text on its terminal,
// its stderr) is kept, and the profile says whether it asks one. Whether
// the agent then waits for an answer is the kernel's to say (input_*.go):
// the watchdog decides.

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

// listen tells the watchdog what the agent's last words, read at at, ask
// a person.
func (l *loop) listen(at time.Time) {
	if l.o.Asks == nil || l.end.phase != Running {
		return
	}
	l.wd.Asked(watchdog.Asking{Terminal: l.termQuestion(), Stderr: l.errQuestion()}, at)
}

// errQuestion is the question the last lines of the agent's stderr
// ask, nil if none.
func (l *loop) errQuestion() *stream.Question {
	if len(l.errSaid)+len(l.errPending) == 0 {
		return nil
	}
	l.words = append(append(l.words[:0], l.errSaid...), stream.Tail(l.errPending)...)
	return l.o.Asks(l.words)
}

// termQuestion is the question the last lines of text on the agent's
// terminal ask, nil if none.
func (l *loop) termQuestion() *stream.Question {
	pending := l.split.Pending()
	if l.join != nil && len(pending) > 0 && pending[0] == '{' {
		pending = nil // An event on its way, not words.
	}
	if len(l.said)+len(pending) == 0 {
		return nil
	}
	l.words = append(append(l.words[:0], l.said...), stream.Tail(pending)...)
	return l.o.Asks(l.words)
}

// lookInput tells the watchdog what the agent waits to read at now. The
// first time the kernel cannot say, the log says the words on the
// terminal decide instead.
func (l *loop) lookInput(now time.Time) {
	in, err := l.input.look(l.inputPids())
	if in == watchdog.InputUnknown && !l.inputUnknown {
		l.inputUnknown = true
		l.o.Log.Write(sessionlog.Warning{Message: "whether the agent waits for input cannot be read (" + err.Error() + "): a question counts only on its terminal with no tool call open"})
	}
	l.wd.ObserveInput(in, now)
}

// inputPids are the processes whose wait for input is the agent's: its
// own, and the runtime process its profile names (Codex's native binary
// under node), once found.
func (l *loop) inputPids() []int {
	if rt := l.tree.findRuntime(l.tree.snapshot()); rt != 0 {
		return []int{l.p.pid, rt}
	}
	return []int{l.p.pid}
}

// leftAsking notes the question an agent that exited by itself without its
// answer left as the last thing it wrote, if any: the last lines of its
// stderr when no text reached its terminal after them, else, when it
// streams events, the last lines of text on its terminal (text on the
// terminal of an agent that does not is its answer, however it reads).
func (l *loop) leftAsking() {
	if l.o.Asks == nil || l.out.Cause != Exited || l.wd.Done() {
		return
	}
	switch {
	case len(l.errSaid)+len(l.errPending) > 0 && !l.saidAt.After(l.errAt):
		l.out.Question = l.errQuestion()
	case l.join != nil:
		l.out.Question = l.termQuestion()
	}
}
