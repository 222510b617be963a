package stream

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The other agents' streams, read from real captures of their CLIs run
// headless against a mock model server. Their lines are not on the hot
// path cursor's are (and carry no megabyte tool results before the keys
// read here), so these parsers favour plain code over zero allocation.

// Claude is Claude Code: claude -p --output-format stream-json --verbose.
// A tool starts with a tool_use block in an assistant message (Bash
// declares input.timeout in ms) and ends with the tool_result block whose
// tool_use_id names it; a Task call stays open while its subagent's nested
// events stream. The terminal event is result.
var Claude = &Profile{
	Name:          "claude",
	Binaries:      []string{"claude"},
	Parse:         func(l Line) Event { return parseWith(l, readClaude, claudeErrors) },
	errors:        claudeErrors,
	valueFlags:    []string{"--model", "--output-format", "--input-format", "--resume", "-r", "--session-id", "--permission-mode", "--append-system-prompt", "--system-prompt", "--max-turns", "--fallback-model", "--settings", "--agents"},
	variadicFlags: []string{"--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools", "--add-dir", "--mcp-config", "--tools", "--betas"},
	printFlags:    []string{"-p", "--print"},
	formatFlags:   []string{"--output-format"},
	streaming:     "stream-json",
	extra:         []string{"--verbose"}, // stream-json in print mode requires it
	modelFlags:    []string{"--model"},
	resumeFlag:    "--resume",
}

// Codex is OpenAI's Codex CLI: codex exec --json. A tool starts with
// item.started and ends with item.completed of the same item id; an
// item.completed of type error is informational. The session is
// thread.started's thread_id; the terminal events are turn.completed and
// turn.failed; a session is resumed with codex exec resume ID.
var Codex = &Profile{
	Name:          "codex",
	Binaries:      []string{"codex"},
	Parse:         func(l Line) Event { return parseWith(l, readCodex, codexErrors) },
	errors:        codexErrors,
	subcommand:    []string{"exec", "e"},
	valueFlags:    []string{"-m", "--model", "-c", "--config", "-C", "--cd", "-s", "--sandbox", "-a", "--ask-for-approval", "-p", "--profile", "-o", "--output-last-message", "--output-schema", "--color", "--enable", "--disable", "--add-dir"},
	variadicFlags: []string{"-i", "--image"},
	formatFlags:   []string{"--json"},
	modelFlags:    []string{"--model"},
	workspaceFlag: "--cd",
	resumeSub:     "resume",
}

// Gemini is Gemini CLI: gemini -p PROMPT --output-format stream-json. Tools
// pair tool_use and tool_result by tool_id; the terminal event is result.
// It resumes sessions by list index only, so a restart reruns the command.
var Gemini = &Profile{
	Name:          "gemini",
	Binaries:      []string{"gemini"},
	Parse:         func(l Line) Event { return parseWith(l, readGemini, geminiErrors) },
	errors:        geminiErrors,
	valueFlags:    []string{"-p", "--prompt", "-m", "--model", "-o", "--output-format", "-r", "--resume", "--approval-mode", "--session-id", "--session-file", "-i", "--prompt-interactive"},
	variadicFlags: []string{"--include-directories", "--allowed-tools", "--extensions", "-e", "--allowed-mcp-server-names"},
	printFlags:    []string{"-p", "--prompt"},
	promptIsValue: true,
	formatFlags:   []string{"-o", "--output-format"},
	streaming:     "stream-json",
	modelFlags:    []string{"--model", "-m"},
}

// OpenCode is opencode: opencode run --format json. A tool appears only
// when it has ended, so a step_start without its step_finish (paired by
// the part's messageID) is the busy signal, an open call with no declared
// timeout. The last step_finish, reason stop, completes the answer.
var OpenCode = &Profile{
	Name:          "opencode",
	Binaries:      []string{"opencode"},
	Parse:         func(l Line) Event { return parseWith(l, readOpenCode, openCodeErrors) },
	errors:        openCodeErrors,
	subcommand:    []string{"run"},
	valueFlags:    []string{"-m", "--model", "-s", "--session", "--format", "--title", "--dir", "--variant", "--agent", "--file", "-f", "--attach", "--port"},
	formatFlags:   []string{"--format"},
	streaming:     "json",
	modelFlags:    []string{"--model"},
	workspaceFlag: "--dir",
	resumeFlag:    "--session",
}

// parseWith runs an agent's line reader and settles what every parser
// shares: whether the line was JSON, what a cut line still says, and
// whether the line reports an error. read returns the text of the error
// its event reports, "" if none.
func parseWith(l Line, read func(*scanner, *Event) string, errs *errorTable) Event {
	var ev Event
	var errText string
	s := scanner{b: l.Text}
	if s.enter() {
		errText = read(&s, &ev)
	}
	ev = settle(l, &s, ev)
	errs.eventError(&ev, errText, l.Text)
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

// readClaude reads a Claude Code event. Its errors are a result marked
// is_error, whose text is the error, and an assistant message with an
// "error" code (authentication_failed, billing_error, rate_limit, …), whose
// text says it in words.
func readClaude(s *scanner, ev *Event) (errText string) {
	var isError bool
	var errCode string
	var text rawString // the message's first text block, decoded only for an error
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			ev.Type = s.name()
		case "subtype":
			ev.Subtype = s.name()
		case "session_id":
			ev.SessionID = s.stringValue()
		case "result":
			ev.Answer = s.stringValue()
		case "is_error":
			isError = s.peek() == 't'
			s.skip()
		case "error":
			errCode = s.stringValue()
		case "message":
			s.nested(func(key []byte) {
				if string(key) != "content" {
					s.skip()
					return
				}
				s.array(func() { readClaudeBlock(s, ev, &text) })
			})
		default:
			s.skip()
		}
	})
	switch ev.Type {
	case "result":
		ev.Terminal = true
		if isError {
			errText, ev.Answer = ev.Answer, ""
		}
	case "system":
		if ev.Subtype != "init" {
			ev.SessionID = ""
		}
	default:
		ev.SessionID = ""
		ev.Answer = ""
		if ev.Type == "assistant" && errCode != "" {
			errText = errCode + ": " + decode(text.raw, text.escaped)
		}
	}
	return errText
}

// rawString is a string value as it is in the line, escapes undecoded.
type rawString struct {
	raw     []byte
	escaped bool
}

// readClaudeBlock reads one content block: a tool_use opens a call, a
// tool_result closes one.
func readClaudeBlock(s *scanner, ev *Event, text *rawString) {
	var typ, id, name, useID string
	var c Call
	s.nested(func(key []byte) {
		switch string(key) {
		case "text":
			if raw, escaped, ok := s.strValue(); ok && text.raw == nil {
				*text = rawString{raw, escaped}
			}
		case "type":
			typ = s.name()
		case "id":
			id = s.stringValue()
		case "name":
			name = s.stringValue()
		case "tool_use_id":
			useID = s.stringValue()
		case "input":
			readInput(s, &c)
		default:
			s.skip()
		}
	})
	switch typ {
	case "tool_use":
		if id != "" {
			c.ID, c.Kind = id, name
			ev.Started = append(ev.Started, c)
			ev.CallID = id
		}
	case "tool_result":
		if useID != "" {
			ev.Ended = append(ev.Ended, useID)
			ev.CallID = useID
		}
	}
}

// codexNotTools are item types that are not tool calls.
var codexNotTools = []string{"agent_message", "reasoning", "error"}

// readCodex reads a codex event. Its errors are the "error" event's
// message and turn.failed's error.message; an item of type error is
// informational (an unknown model's metadata) and not read as one.
func readCodex(s *scanner, ev *Event) (errText string) {
	var item struct{ id, typ, command, text string }
	var message string
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			ev.Type = s.name()
		case "thread_id":
			ev.SessionID = s.stringValue()
		case "message":
			message = s.stringValue()
		case "error":
			if s.peek() != '{' {
				message = s.stringValue()
				return
			}
			s.nested(func(key []byte) {
				if string(key) == "message" {
					message = s.stringValue()
					return
				}
				s.skip()
			})
		case "item":
			s.nested(func(key []byte) {
				switch string(key) {
				case "id":
					item.id = s.stringValue()
				case "type":
					item.typ = s.name()
				case "command", "server", "tool", "query":
					if item.command == "" {
						item.command = s.stringValue()
						return
					}
					s.skip()
				case "text":
					item.text = s.stringValue()
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
	isTool := item.id != "" && !slices.Contains(codexNotTools, item.typ)
	switch ev.Type {
	case "item.started":
		if isTool {
			ev.Started = []Call{{ID: item.id, Kind: item.typ, Command: item.command}}
			ev.CallID = item.id
		}
	case "item.completed":
		switch {
		case isTool:
			ev.Ended = []string{item.id}
			ev.CallID = item.id
		case item.typ == "agent_message":
			ev.Answer = item.text
		}
	case "turn.completed", "turn.failed":
		ev.Terminal = true
	}
	if ev.Type == "error" || ev.Type == "turn.failed" {
		errText = message
	}
	if ev.Type != "thread.started" {
		ev.SessionID = ""
	}
	return errText
}

// readGemini reads a Gemini CLI event. Its errors are an "error" event of
// severity error (a warning, such as a detected loop, is not one) and a
// result of status error; a tool_result's error is the tool's.
func readGemini(s *scanner, ev *Event) (errText string) {
	var role, content, toolID, toolName string
	var severity, message, status, errType, errMessage string
	var delta bool
	var c Call
	s.object(func(key []byte) {
		switch string(key) {
		case "severity":
			severity = s.stringValue()
		case "message":
			message = s.stringValue()
		case "status":
			status = s.stringValue()
		case "error":
			s.nested(func(key []byte) {
				switch string(key) {
				case "type":
					errType = s.stringValue()
				case "message":
					errMessage = s.stringValue()
				default:
					s.skip()
				}
			})
		case "type":
			ev.Type = s.name()
		case "session_id":
			ev.SessionID = s.stringValue()
		case "role":
			role = s.stringValue()
		case "content":
			content = s.stringValue()
		case "delta":
			delta = s.peek() == 't'
			s.skip()
		case "tool_id":
			toolID = s.stringValue()
		case "tool_name":
			toolName = s.stringValue()
		case "parameters":
			readInput(s, &c)
		default:
			s.skip()
		}
	})
	switch ev.Type {
	case "tool_use":
		if toolID != "" {
			c.ID, c.Kind = toolID, toolName
			ev.Started, ev.CallID = []Call{c}, toolID
		}
	case "tool_result":
		if toolID != "" {
			ev.Ended, ev.CallID = []string{toolID}, toolID
		}
	case "message":
		if role == "assistant" {
			ev.Answer, ev.AnswerDelta = content, delta
		}
	case "result":
		ev.Terminal = true
		if status == "error" {
			errText = strings.TrimPrefix(errType+": "+errMessage, ": ")
		}
	case "error":
		if severity == "error" {
			errText = strings.TrimSpace(message + " " + status)
		}
	}
	if ev.Type != "init" {
		ev.SessionID = ""
	}
	return errText
}

// readOpenCode reads an opencode event. Its errors are the "error" event:
// {"error":{"name":"APIError","data":{"message":…,"statusCode":429}}}, or
// the newer {"error":{"type":"provider.rate-limit","message":…,"status":429}};
// the text read is "name: message (HTTP status)".
func readOpenCode(s *scanner, ev *Event) (errText string) {
	var messageID, reason, text, callID string
	var oe openCodeError
	s.object(func(key []byte) {
		switch string(key) {
		case "error":
			oe.read(s)
		case "type":
			ev.Type = s.name()
		case "sessionID":
			ev.SessionID = s.stringValue()
		case "part":
			s.nested(func(key []byte) {
				switch string(key) {
				case "messageID":
					messageID = s.stringValue()
				case "reason":
					reason = s.stringValue()
				case "text":
					text = s.stringValue()
				case "callID":
					callID = s.stringValue()
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
	step := "step:" + messageID
	switch ev.Type {
	case "step_start":
		if messageID != "" {
			ev.Started, ev.CallID = []Call{{ID: step, Kind: "step"}}, step
		}
	case "step_finish":
		if messageID != "" {
			ev.Ended, ev.CallID = []string{step}, step
		}
		ev.Terminal = reason == "stop"
	case "text":
		ev.Answer = text
	case "tool_use":
		ev.CallID = callID
	case "error":
		errText = oe.String()
	}
	return errText
}

// openCodeError is what an opencode error event says.
type openCodeError struct {
	name, message string
	status        int64
}

func (e *openCodeError) read(s *scanner) {
	if s.peek() == '"' {
		e.message = s.stringValue()
		return
	}
	field := func(key []byte) {
		switch string(key) {
		case "name", "type":
			if e.name == "" {
				e.name = s.stringValue()
				return
			}
			s.skip()
		case "message":
			e.message = s.stringValue()
		case "status", "statusCode":
			e.status, _ = s.int64()
		case "data":
			e.read(s)
		default:
			s.skip()
		}
	}
	s.nested(field)
}

func (e *openCodeError) String() string {
	t := e.message
	if e.name != "" {
		t = e.name + ": " + t
	}
	if e.status != 0 {
		t += " (HTTP " + strconv.FormatInt(e.status, 10) + ")"
	}
	return t
}
