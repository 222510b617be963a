package stream

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// An Event is what one line of agent output tells the watchdog and the log.
// Any line, JSON or not, is an Event: a line proves the stream is alive.
type Event struct {
	Type    string // the envelope's "type", "" for a line that is not JSON
	Subtype string // the envelope's "subtype", if any
	// NotJSON is set for a line that is not a JSON object (a bare
	// "T: …" notice, a terminal-reset fragment, ANSI noise).
	NotJSON bool
	// Truncated is set when the line was longer than the splitter kept;
	// the fields before the cut were still read.
	Truncated bool
	SessionID string // set by the events that carry the session's identity
	CallID    string // the tool call the line is about, if any
	AgentTS   int64  // the agent's own timestamp in Unix ms, 0 if none
	Started   []Call // tool calls this line opens
	Ended     []string
	// Model says whether the line opens a call to the agent's model or
	// closes one, as its profile's table says (see ModelEdge).
	Model ModelEdge
	// Terminal is set by the event that completes the agent's answer
	// (cursor's "result"); afterwards the agent is expected to exit.
	Terminal bool
	// Failed is set on a terminal event that says the run failed (a
	// result marked is_error, whatever its subtype says): it ends the
	// run without an answer, even when the agent then exits 0.
	Failed bool
	// Answer is the agent's reply text, or a piece of it to append when
	// AnswerDelta is set. The last whole one (with the pieces after it) is
	// the final answer.
	Answer      string
	AnswerDelta bool
	// AnswerDropped is, about, how many bytes of Answer the line lost past
	// what the splitter kept (a reply longer than DefaultKeep).
	AnswerDropped int64
	// Error is set when the line is the agent saying it cannot go on (a
	// rate limit, no login, …), as its profile's patterns read it. Only
	// the fields agents use for errors are read: an answer that discusses
	// rate limits is not one.
	Error *AgentError
	// Usage is what the line reports the agent spent, nil if nothing;
	// UsageScope says how it adds to the run's total (see Tally), and
	// UsageID names the message a UsageMessage counts for.
	Usage      *Usage
	UsageScope UsageScope
	UsageID    string
}

// Label names the line for people: "type/subtype", or "text" for a line
// that is not JSON.
func (e Event) Label() string {
	switch {
	case e.NotJSON:
		return "text"
	case e.Subtype != "":
		return e.Type + "/" + e.Subtype
	}
	return e.Type
}

// A Call is one tool call as its start event declares it.
type Call struct {
	ID      string // exact call id; cursor's may contain a newline
	Kind    string // e.g. "shellToolCall"
	Command string // what the call runs or touches, for people
	// Timeout is the wait the agent declared for the call, 0 if none.
	Timeout time.Duration
	// Turn marks a call that is the agent's turn with its model, not a
	// tool's run: opencode's step, inside which its tools run unseen.
	Turn bool
}

// MaxAnswer bounds the answer a Reply keeps: an answer is kept whole up to
// it, then cut with a marker that says how much was dropped, so that
// memory stays flat however long the agent writes (a Gemini run of a
// million deltas, a result line of a gigabyte).
const MaxAnswer = 4 << 20

// A Reply folds events' answers into the agent's final answer: a whole
// answer replaces what came before, a delta is appended.
type Reply struct {
	text    []byte
	dropped int64 // bytes of the answer not kept
}

// Add takes one event's answer, if it has one.
func (r *Reply) Add(ev Event) {
	switch {
	case ev.AnswerDelta:
	case ev.Answer != "":
		r.text, r.dropped = r.text[:0], 0
	default:
		return
	}
	a := ev.Answer
	if room := MaxAnswer - len(r.text); len(a) > room {
		k := room
		for k > 0 && !utf8.RuneStart(a[k]) {
			k-- // Cut between runes, never inside one.
		}
		r.dropped += int64(len(a) - k)
		a = a[:k]
	}
	r.text = append(r.text, a...)
	r.dropped += ev.AnswerDropped
}

// String returns the answer so far, and a last line saying how much of it
// was dropped, if any was.
func (r *Reply) String() string {
	if r.dropped == 0 {
		return string(r.text)
	}
	return string(r.text) + fmt.Sprintf("\n[cursor-wrap: the answer was cut here, at %d bytes; about %d more were dropped]", len(r.text), r.dropped)
}
