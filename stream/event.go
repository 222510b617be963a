package stream

import (
	"fmt"
	"strings"
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
}

// Parse reads one line of cursor-agent stream-json output. It never fails:
// a line it cannot read as a JSON object comes back with NotJSON set.
func Parse(l Line) Event {
	// Not through parseWith: a call through a func value would move the
	// scanner to the heap, and this is the hot path.
	var ev Event
	var errText string
	s := newScanner(l)
	if s.enter() {
		errText = readCursor(&s, &ev)
	}
	ev = settle(l, &s, ev)
	if ev.NotJSON || errText != "" {
		cursorErrors.eventError(&ev, errText, l.Text)
	}
	return ev
}

// readCursor reads a cursor event into ev, and returns the text of the
// error it reports, if any. Cursor has no error event; a failed run writes
// plain text (see eventError), or a result marked as an error.
func readCursor(s *scanner, ev *Event) (errText string) {
	var sessionID, callID []byte
	var sessionEscaped, callEscaped, isError bool
	var tc toolCall
	var usage *Usage
	for first := true; ; first = false {
		key, ok := s.member(first)
		if !ok {
			break
		}
		switch string(key) {
		case "type":
			ev.Type = s.name()
		case "subtype":
			ev.Subtype = s.name()
		case "session_id":
			sessionID, sessionEscaped, _ = s.strValue()
		case "call_id":
			callID, callEscaped, _ = s.strValue()
		case "timestamp_ms":
			ev.AgentTS, _ = s.int64()
		case "tool_call":
			tc.read(s, false)
		case "payload":
			readPayload(s, &tc)
		case "result":
			// Read only on the terminal event: the only one that carries it.
			if ev.Type == "result" {
				ev.Answer, _ = s.text()
				ev.AnswerDropped = s.dropped()
			} else {
				s.skip()
			}
		case "is_error":
			isError = s.peek() == 't'
			s.skip()
		case "usage":
			usage = readUsage(s, cursorUsageKeys)
		default:
			s.skip()
		}
	}
	switch ev.Type {
	case "system":
		if ev.Subtype == "init" {
			ev.SessionID = decode(sessionID, sessionEscaped)
		}
	case "result":
		ev.Terminal = true
		ev.SessionID = decode(sessionID, sessionEscaped)
		// Cumulative over the run (newer builds only).
		ev.spent(usage, UsageTotal, "")
		if isError || ev.Subtype == "error" {
			// The text of a failed run is its error, not an answer.
			errText, ev.Answer, ev.Failed = ev.Answer, "", true
		}
	case "tool_call":
		ev.CallID = decode(callID, callEscaped)
		if ev.CallID == "" {
			ev.CallID = tc.id
		}
		if ev.CallID == "" {
			return
		}
		switch ev.Subtype {
		case "started":
			ev.Started = []Call{{ID: ev.CallID, Kind: tc.kind, Command: tc.command, Timeout: tc.timeout}}
		case "completed":
			ev.Ended = []string{ev.CallID}
		}
	}
	return errText
}

// decode turns a string's raw contents into a Go string the way
// encoding/json does (escapes decoded, invalid UTF-8 replaced), so that ids
// compare equal however they are read.
func decode(raw []byte, escaped bool) string {
	if escaped || !utf8.Valid(raw) {
		return unescape(raw)
	}
	return string(raw)
}

// readPayload accepts the payload-wrapped shape some consumers store:
// {"payload":{"toolCall":{"id":…,"shellToolCall":{…}}}}.
func readPayload(s *scanner, tc *toolCall) {
	s.nested(func(key []byte) {
		if string(key) == "toolCall" {
			tc.read(s, true)
			return
		}
		s.skip()
	})
}

// toolCall collects what a cursor tool_call body declares.
type toolCall struct {
	id, kind, command string
	timeout           time.Duration
}

// read walks a tool_call object. The kind is the one key ending in
// "ToolCall", so tools added to cursor later are read the same way.
// withID accepts an "id" member (the payload-wrapped shape).
func (tc *toolCall) read(s *scanner, withID bool) {
	s.nested(func(key []byte) {
		switch {
		case string(key) == "toolCallId" || withID && string(key) == "id":
			if id, ok := s.text(); ok && tc.id == "" {
				tc.id = id
			}
		case strings.HasSuffix(string(key), "ToolCall") && tc.kind == "":
			tc.kind = kindName(key)
			s.nested(func(key []byte) {
				if string(key) != "args" {
					s.skip()
					return
				}
				var c Call
				readInput(s, &c)
				tc.command, tc.timeout = c.Command, c.Timeout
				if tc.id == "" {
					tc.id = c.ID
				}
			})
		default:
			s.skip()
		}
	})
}

// summaryKeys name the argument that best says what a call does, in
// order of preference: a shell command, a file, a search, an MCP tool.
var summaryKeys = [...]string{"command", "path", "pattern", "globPattern", "url", "query", "toolName", "name"}

func summaryRank(key string) int {
	for i, k := range summaryKeys {
		if k == key {
			return i
		}
	}
	return len(summaryKeys)
}

// name reads a string value that is one of a small set of names. Known
// names come back as constants, so the common events cost no allocation.
func (s *scanner) name() string {
	raw, escaped, ok := s.strValue()
	if !ok {
		return ""
	}
	if escaped {
		return decode(raw, true)
	}
	switch string(raw) {
	case "system":
		return "system"
	case "init":
		return "init"
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "thinking":
		return "thinking"
	case "delta":
		return "delta"
	case "completed":
		return "completed"
	case "started":
		return "started"
	case "tool_call":
		return "tool_call"
	case "result":
		return "result"
	case "success":
		return "success"
	case "error":
		return "error"
	case "interaction_query":
		return "interaction_query"
	case "connection":
		return "connection"
	case "retry":
		return "retry"
	}
	return decode(raw, false)
}

// kindName returns a tool kind as a string, without allocating for the
// kinds cursor is known to send.
func kindName(key []byte) string {
	switch string(key) {
	case "shellToolCall":
		return "shellToolCall"
	case "readToolCall":
		return "readToolCall"
	case "editToolCall":
		return "editToolCall"
	case "writeToolCall":
		return "writeToolCall"
	case "grepToolCall":
		return "grepToolCall"
	case "globToolCall":
		return "globToolCall"
	case "lsToolCall":
		return "lsToolCall"
	case "mcpToolCall":
		return "mcpToolCall"
	case "deleteToolCall":
		return "deleteToolCall"
	case "webFetchToolCall":
		return "webFetchToolCall"
	case "webSearchToolCall":
		return "webSearchToolCall"
	case "updateTodosToolCall":
		return "updateTodosToolCall"
	}
	return string(key)
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
