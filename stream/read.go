package stream

import (
	"errors"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// What every agent's line reader shares: the walk over a line's JSON
// values, the settling of a parse, and a tool input's summary. Only
// cursor's lines are on the hot path (and carry megabyte tool results
// before the keys read); the other agents' readers favour plain code over
// zero allocation.

// parseWith runs an agent's line reader and settles what every parser
// shares: whether the line was JSON, what a cut line still says, and
// whether the line reports an error. read returns the text of the error
// its event reports, "" if none.
func parseWith(l Line, read func(*scanner, *Event) string, errs *errorTable, calls modelTable) Event {
	var ev Event
	var errText string
	s := newScanner(l)
	if s.enter() {
		errText = read(&s, &ev)
	}
	ev = settle(l, &s, ev)
	errs.eventError(&ev, errText, l.Text)
	ev.Model = calls.edge(ev.Type, ev.Subtype)
	return ev
}

// settle finishes a parse: trailing bytes make a line not JSON, and a line
// cut by the splitter keeps what was read before the cut.
func settle(l Line, s *scanner, ev Event) Event {
	if s.peek() != 0 {
		s.fail()
	}
	switch {
	case l.Truncated():
		ev.Truncated = true
		ev.NotJSON = ev.Type == ""
	case s.bad:
		ev = Event{NotJSON: true}
	}
	return ev
}

// object walks the members of the object the scanner is in (its '{'
// consumed), calling f with the scanner at each value; f must read or
// skip it.
func (s *scanner) object(f func(key []byte)) {
	for first := true; ; first = false {
		key, ok := s.member(first)
		if !ok {
			return
		}
		f(key)
	}
}

// nested walks an object value, or skips a value of another type.
func (s *scanner) nested(f func(key []byte)) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	s.enter()
	s.object(f)
}

// array walks an array value, or skips a value of another type.
func (s *scanner) array(f func()) {
	if s.peek() != '[' {
		s.skip()
		return
	}
	s.enterArray()
	for first := true; s.element(first); first = false {
		f()
	}
}

// stringValue reads a string value, "" if it is another type.
func (s *scanner) stringValue() string {
	v, _ := s.text()
	return v
}

// millis reads a number of milliseconds as a duration.
func (s *scanner) millis() time.Duration {
	b, ok := s.numberValue()
	if !ok {
		return 0
	}
	ms, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || !(ms > 0) {
		return 0
	}
	// A budget of centuries is still a budget: saturate, never wrap.
	if ms >= float64(math.MaxInt64/int64(time.Millisecond)) {
		return math.MaxInt64
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// readInput reads a tool's input (cursor's args): what it runs or touches,
// the timeout it declares in milliseconds, and the call id some carry.
// "hardTimeout" (cursor's 24 h) is another key, ignored on purpose: cursor
// backgrounds the command at "timeout".
func readInput(s *scanner, c *Call) {
	rank := len(summaryKeys) + 1
	s.nested(func(key []byte) {
		switch string(key) {
		case "timeout":
			c.Timeout = s.millis()
		case "toolCallId":
			if id := s.stringValue(); c.ID == "" {
				c.ID = id
			}
		case "file_path", "description":
			// Claude's names for a file and for a shell command's purpose.
			r := len(summaryKeys)
			if string(key) == "file_path" {
				r = summaryRank("path")
			}
			if r < rank {
				c.Command, rank = s.stringValue(), r
				return
			}
			s.skip()
		default:
			if r := summaryRank(string(key)); r < rank {
				c.Command, rank = s.stringValue(), r
				return
			}
			s.skip()
		}
	})
}

// rawString is a string value as it is in the line, escapes undecoded.
type rawString struct {
	raw     []byte
	escaped bool
}

// rawValue reads a string value undecoded: most of a line's strings are
// never kept. Another type reads as absent (raw nil).
func (s *scanner) rawValue() rawString {
	raw, escaped, _ := s.strValue()
	return rawString{raw, escaped}
}

func (r rawString) String() string { return decode(r.raw, r.escaped) }

// open records a tool call the event starts; close one it ends.
func (ev *Event) open(c Call) {
	ev.Started = append(ev.Started, c)
	ev.CallID = c.ID
}

func (ev *Event) close(id string) {
	ev.Ended = append(ev.Ended, id)
	ev.CallID = id
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
