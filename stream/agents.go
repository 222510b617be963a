package stream

import (
	"errors"
	"math"
	"strconv"
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
	Install:       "npm install -g @anthropic-ai/claude-code",
	Parse:         func(l Line) Event { return parseWith(l, readClaude, claudeErrors) },
	errors:        claudeErrors,
	questions:     claudeQuestions,
	phases:        map[string]Phase{"system/init": SessionOpened, "user": ModelsTurn, "assistant": Writing},
	UsageTiming:   UsageAsItGoes,
	CostTiming:    UsageAtEnd,
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
	Install:       "npm install -g @openai/codex",
	Parse:         func(l Line) Event { return parseWith(l, readCodex, codexErrors) },
	errors:        codexErrors,
	questions:     codexQuestions,
	phases:        map[string]Phase{"thread.started": SessionOpened, "turn.started": ModelsTurn},
	UsageTiming:   UsageAtEnd,
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
	Install:       "npm install -g @google/gemini-cli",
	Parse:         func(l Line) Event { return parseWith(l, readGemini, geminiErrors) },
	errors:        geminiErrors,
	questions:     geminiQuestions,
	phases:        map[string]Phase{"init": SessionOpened, "tool_result": ModelsTurn},
	UsageTiming:   UsageAtEnd,
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
	Install:       "npm install -g opencode-ai",
	Parse:         func(l Line) Event { return parseWith(l, readOpenCode, openCodeErrors) },
	errors:        openCodeErrors,
	questions:     openCodeQuestions,
	phases:        map[string]Phase{"step_start": ModelsTurn, "text": Writing},
	UsageTiming:   UsageAsItGoes,
	CostTiming:    UsageAsItGoes,
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
	s := newScanner(l)
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
