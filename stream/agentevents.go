package stream

import (
	"slices"
	"strconv"
	"strings"
)

// How each of the other agents' events is read: what starts and ends a
// tool call, the final answer, and the error an event states (see the
// profiles in agents.go).

// readClaude reads a Claude Code event. Its errors are a result marked
// is_error, whose text is the error, and an assistant message with an
// "error" code (authentication_failed, billing_error, rate_limit, …), whose
// text says it in words.
func readClaude(s *scanner, ev *Event) (errText string) {
	var isError bool
	var errCode string
	var text rawString    // the message's first text block, decoded only for an error
	var session rawString // on every line; decoded only where it is kept
	var messageID string
	var usage, messageUsage *Usage
	var cost float64
	var hasCost bool
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			ev.Type = s.name()
		case "subtype":
			ev.Subtype = s.name()
		case "session_id":
			raw, escaped, _ := s.strValue()
			session = rawString{raw, escaped}
		case "result":
			ev.Answer = s.stringValue()
			ev.AnswerDropped = s.dropped()
		case "is_error":
			isError = s.peek() == 't'
			s.skip()
		case "error":
			errCode = s.stringValue()
		case "message":
			s.nested(func(key []byte) {
				switch string(key) {
				case "content":
					s.array(func() { readClaudeBlock(s, ev, &text) })
				case "id":
					messageID = s.stringValue()
				case "usage":
					messageUsage = readUsage(s, claudeUsageKeys)
				default:
					s.skip()
				}
			})
		case "usage":
			usage = readUsage(s, claudeUsageKeys)
		case "total_cost_usd":
			cost, hasCost = s.cost()
		default:
			s.skip()
		}
	})
	switch ev.Type {
	case "result":
		ev.Terminal = true
		ev.SessionID = decode(session.raw, session.escaped)
		// The run's totals: they replace the messages' sum.
		if usage == nil && hasCost {
			usage = &Usage{}
		}
		if usage != nil {
			usage.CostUSD, usage.HasCost = cost, hasCost
		}
		ev.spent(usage, UsageTotal, "")
		if isError {
			// "subtype":"success" with is_error on an API error
			// (anthropics/claude-code#79500): failed all the same.
			errText, ev.Answer, ev.Failed = ev.Answer, "", true
		}
	case "system":
		if ev.Subtype == "init" {
			ev.SessionID = decode(session.raw, session.escaped)
		}
	default:
		ev.Answer = ""
		if ev.Type == "assistant" && errCode != "" {
			errText = errCode + ": " + decode(text.raw, text.escaped)
		}
		// Each content block of a message is an event repeating the
		// message's usage so far: counted once, by the message's id.
		if ev.Type == "assistant" && messageID != "" {
			ev.spent(messageUsage, UsageMessage, messageID)
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
	var item struct {
		id, typ, command, text string
		textDropped            int64
	}
	var message string
	var usage *Usage
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
		case "usage":
			usage = readUsage(s, codexUsageKeys)
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
					item.textDropped = s.dropped()
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
			ev.Answer, ev.AnswerDropped = item.text, item.textDropped
		}
	case "turn.completed", "turn.failed":
		ev.Terminal, ev.Failed = true, ev.Type == "turn.failed"
		// Cumulative since the thread started, not the turn's alone.
		ev.spent(usage, UsageTotal, "")
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
	var contentDropped int64
	var c Call
	var usage *Usage
	s.object(func(key []byte) {
		switch string(key) {
		case "stats":
			usage = readUsage(s, geminiUsageKeys)
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
			contentDropped = s.dropped()
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
			ev.Answer, ev.AnswerDelta, ev.AnswerDropped = content, delta, contentDropped
		}
	case "result":
		ev.Terminal, ev.Failed = true, status == "error"
		ev.spent(usage, UsageTotal, "")
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
	var reason, text, callID string
	var textDropped int64
	var messageID rawString // decoded only by the events of a step
	var oe openCodeError
	var usage *Usage
	var cost float64
	var hasCost bool
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
					raw, escaped, _ := s.strValue()
					messageID = rawString{raw, escaped}
				case "reason":
					reason = s.stringValue()
				case "text":
					text = s.stringValue()
					textDropped = s.dropped()
				case "callID":
					callID = s.stringValue()
				case "tokens":
					usage = readUsage(s, openCodeUsageKeys)
				case "cost":
					cost, hasCost = s.cost()
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
	switch ev.Type {
	case "step_start":
		if id := decode(messageID.raw, messageID.escaped); id != "" {
			step := "step:" + id
			ev.Started, ev.CallID = []Call{{ID: step, Kind: "step"}}, step
		}
	case "step_finish":
		if id := decode(messageID.raw, messageID.escaped); id != "" {
			step := "step:" + id
			ev.Ended, ev.CallID = []string{step}, step
		}
		ev.Terminal = reason == "stop"
		// One step's spending: steps add up.
		if usage == nil && hasCost {
			usage = &Usage{}
		}
		if usage != nil {
			usage.CostUSD, usage.HasCost = cost, hasCost
		}
		ev.spent(usage, UsageDelta, "")
	case "text":
		ev.Answer, ev.AnswerDropped = text, textDropped
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
