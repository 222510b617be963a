package watchdog

import (
	"time"

	"cursor-wrap/stream"
)

// The person rule: a question only a person can answer, asked by an agent
// that then waits for the answer. Words alone prove nothing (a tool's
// output, a log line, an answer may hold "[y/N]"); what the agent waits
// on is the gate, read from the kernel by the orchestrator (ObserveInput).

// AskWait is how long the agent may stay quiet after a question only a
// person can answer before the run stops: well within the 10 s promised,
// and long enough for an agent that quoted such words in its answer to
// exit first.
const AskWait = 5 * time.Second

// askLook is how often an agent that asked but was not seen waiting for
// the answer is looked at again while its question stands: it may start
// reading later.
const askLook = time.Second

// Input is what the kernel says the agent (or its runtime process) waits
// to read.
type Input int

const (
	// InputUnknown: the kernel does not say (Yama's ptrace_scope 2 or 3,
	// an agent that is not dumpable, macOS). The person rule then falls
	// back to a question on the agent's terminal with no tool call open.
	InputUnknown  Input = iota
	InputNone           // it waits on neither its terminal nor its stdin
	InputTerminal       // it waits to read its terminal
	InputStdin          // it waits to read its stdin
)

func (in Input) String() string {
	return [...]string{"unknown", "none", "terminal", "stdin"}[in]
}

// waiting reports whether the agent was seen waiting for input.
func (in Input) waiting() bool { return in == InputTerminal || in == InputStdin }

// waitingOn names what the agent was seen waiting to read, "" if none.
func (in Input) waitingOn() string {
	if in.waiting() {
		return in.String()
	}
	return ""
}

// Asking is what the agent's last words that are not its stream ask a
// person: the question in its last lines on its terminal, and in its last
// lines on its stderr (cursor-agent's trust prompt is there); nil where
// they ask nothing.
type Asking struct {
	Terminal, Stderr *stream.Question
}

func (a Asking) asks() bool { return a.Terminal != nil || a.Stderr != nil }

// asking is the question the agent's last words put, and what the kernel
// last said of its input.
type asking struct {
	Asking
	at     time.Time // when the last of those words was read
	input  Input     // the last look
	looked time.Time // when it was taken
}

// Asked records what the agent's last words that are not its stream (text
// read at at) ask a person; a zero Asking says they ask nothing. The run
// stops AskWait after those words, or after any later output, if the
// agent is then seen waiting for input (ObserveInput): a headless run has
// nobody to answer.
func (w *Watchdog) Asked(a Asking, at time.Time) {
	w.ask.Asking, w.ask.at = a, at
}

// askDue is when a question stops the run, if the agent waits to be
// answered then.
func (w *Watchdog) askDue() time.Time { return maxTime(w.ask.at, w.last).Add(AskWait) }

// question returns the question that stops the run and when, if the look
// at the agent's input taken since askDue allows it: the agent waits for
// input (the question on its stderr, else on its terminal); or, where the
// kernel cannot tell, the question on its terminal with no tool call open.
func (w *Watchdog) question() (*stream.Question, time.Time) {
	if !w.ask.asks() || w.done || w.ask.looked.Before(w.askDue()) {
		return nil, time.Time{}
	}
	switch {
	case w.ask.input.waiting():
		if w.ask.Stderr != nil {
			return w.ask.Stderr, w.ask.looked
		}
		return w.ask.Terminal, w.ask.looked
	case w.ask.input == InputUnknown && w.ask.Terminal != nil && len(w.calls.byID) == 0:
		return w.ask.Terminal, w.ask.looked
	}
	return nil, time.Time{}
}

// inputLookAt is when the agent's input is to be looked at next: at
// askDue, then every askLook while the question stands unanswered.
func (w *Watchdog) inputLookAt() (time.Time, bool) {
	if !w.ask.asks() || w.done {
		return time.Time{}, false
	}
	if due := w.askDue(); w.ask.looked.Before(due) {
		return due, true
	}
	return w.ask.looked.Add(askLook), true
}

// WantsInput reports whether a look at the agent's input taken at now
// would be used: the orchestrator reads the kernel only then.
func (w *Watchdog) WantsInput(now time.Time) bool {
	at, ok := w.inputLookAt()
	return ok && !now.Before(at)
}

// ObserveInput feeds what the kernel said at now of the agent's input.
func (w *Watchdog) ObserveInput(in Input, now time.Time) {
	if w.ask.asks() {
		w.ask.input, w.ask.looked = in, now
	}
}
