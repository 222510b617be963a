package stream

import (
	"strings"
	"time"
)

// cursor-agent: its profile, how its stream-json lines are read, the errors
// it states, the questions it asks a person and its names for usage.

// Cursor is the profile of cursor-agent (also installed as agent).
var Cursor = &Profile{
	Name:          "cursor",
	Binaries:      []string{"cursor-agent", "agent"},
	Install:       "curl https://cursor.com/install -fsS | bash",
	Parse:         Parse,
	errors:        cursorErrors,
	questions:     cursorQuestions,
	phases:        map[string]Phase{"system/init": SessionOpened, "user": ModelsTurn, "tool_call/completed": ModelsTurn, "thinking": Thinking, "assistant": Writing},
	modelCalls:    cursorModelCalls,
	UsageTiming:   UsageAtEnd,
	flags:         cursorFlags,
	printFlags:    []string{"-p", "--print"},
	formatFlags:   []string{"--output-format"},
	streaming:     "stream-json",
	modelFlags:    []string{"--model", "-m"},
	workspaceFlag: "--workspace",
	forceFlags:    []string{"--force", "-f", "--yolo"},
	resumeFlag:    "--resume",
}

// cursorModelCalls: as Claude's, in cursor's words: the model has the
// prompt once the session opens (and the prompt is echoed as a user line)
// and a tool's result once its call completes; its reply comes as an
// assistant line (thinking lines are its words too, but not its reply)
// and a tool it asks for takes over.
var cursorModelCalls = modelTable{"system/init": ModelOpens, "user": ModelOpens, "tool_call/completed": ModelOpens,
	"tool_call/started": ModelCloses, "assistant": ModelCloses, "result": ModelCloses}

// cursorFlags are cursor-agent's options: first as its --help prints them
// (2026.09.28-64d2043, the capture in testdata/cursor-agent-help.txt,
// which a test holds this table to), then the ones it takes but hides
// (hideHelp in 2025.11.25's option definitions), older versions' short
// names (-m, -a in the CLI reference of 2025), and --name, which the
// public record shows in newer versions than the capture.
var cursorFlags = flagTable(`
	-v, --version
	--api-key <key>
	-H, --header <header>
	-e, --endpoint <url>
	-p, --print
	--output-format <format>
	--stream-partial-output
	--mode <mode>
	--plan
	--resume [chatId]
	--continue
	--model <model>
	--list-models
	-f, --force
	--yolo
	--auto-review
	--sandbox <mode>
	--approve-mcps
	--trust
	--workspace <path-or-name>
	--add-dir <path>
	--plugin-dir <path>
	-w, --worktree [name]
	--worktree-base <branch>
	--skip-worktree-setup
	-h, --help
`, `
	--debug
	--auth-token <token>
	-k, --insecure
	--http-version <version>
	--repo-endpoint <url>
	--repo-insecure
	--repo-http-version <version>
	--printenv
	--disable-indexing
	-c, --cloud
	-b, --background
	--system-prompt <file>
	--browser
	--min-version <version>
	-m <model>
	-a <key>
	-n, --name <name>
`)

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
	ev.Model = cursorModelCalls.edge(ev.Type, ev.Subtype)
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

var cursorErrors = &errorTable{patterns: append([]ErrorPattern{
	// cursor/cursor#3873, yuaotian/go-cursor-help#592 (agent output, with a
	// request id on the next line). wisdgod/cursor-api#25 shows it inside
	// a {"code":"resource_exhausted"} error.
	{Kind: Update, Phrases: []string{"update to the latest version of Cursor"},
		Sample:  "Please update to the latest version of Cursor at cursor.com/downloads to continue using the Agent",
		Message: "cursor-agent is too old for Cursor's service: update it (cursor-agent update), then run again"},
	// yeongpin/cursor-free-vip#1178 (comment, Cursor 2.2.17).
	{Kind: Update, Phrases: []string{"version of Cursor is no longer supported"},
		Sample:  "This version of Cursor is no longer supported. Please update to continue.",
		Message: "cursor-agent is too old for Cursor's service: update it (cursor-agent update), then run again"},
	// cursor/cursor#3703 ("I have error with cursor-agent"),
	// saaranshM/unsnooze#19 ("captured from a real limit"); FORMAT.md has
	// the ActionRequiredError form on stderr, exit 1. The limit resets with
	// the monthly billing cycle, so a retry is futile.
	{Kind: Quota, Phrases: []string{"hit your usage limit"},
		Sample:  "Error: You've hit your usage limit",
		Message: "Cursor's usage limit is reached; it resets with the monthly cycle: wait, or raise the plan at cursor.com/dashboard"},
	// FORMAT.md (SIRDAR live run 2026.09.10, COFORGE
	// cursor-turn-free-plan-error.jsonl): stderr, exit 1, no result.
	{Kind: Quota, Phrases: []string{"Named models unavailable"},
		Sample:  "ActionRequiredError: Named models unavailable Free plans can only use Auto. Switch to Auto or upgrade plans to continue.",
		Message: "this Cursor plan cannot use the named model: run with --model auto, or upgrade the plan"},
	// FORMAT.md (HCN §2.B): no login, exit 1, nothing on stdout.
	{Kind: Auth, Phrases: []string{"Authentication required"},
		Sample:  "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.",
		Message: "cursor-agent is not logged in: run `cursor-agent login`, or set CURSOR_API_KEY"},
	// FORMAT.md (HCN §2.B): a bad key, in yellow even with TERM=dumb.
	{Kind: Auth, Phrases: []string{"API key is invalid"},
		Sample:  "\x1b[33m⚠ Warning: The provided API key is invalid.\x1b[39m",
		Message: "Cursor rejected the API key: check CURSOR_API_KEY or --api-key"},
	// zed-industries/zed#54735 (cursor over ACP: "Error: S: [resource_exhausted]
	// Error"); can1357/oh-my-pi#4834 ("Connect error resource_exhausted:
	// Error", retried with 45–75 s backoff by that client).
	{Kind: RateLimit, Phrases: []string{"resource_exhausted"},
		Sample:  "Error: S: [resource_exhausted] Error",
		Message: "Cursor's service refused the request (resource_exhausted): retry later with backoff; if it persists, check the usage at cursor.com/dashboard"},
	// cursor/cursor#3564 (the IDE, same backend): ConnectError on a lost
	// network.
	{Kind: Network, Phrases: []string{"Network disconnected"},
		Sample: "ConnectError: [unknown] Network disconnected"},
	// cursor/cursor#3584 (the IDE).
	{Kind: Network, Phrases: []string{"check your internet connection"},
		Sample: "Connection failed. If the problem persists, please check your internet connection or VPN"},
}, networkErrors...)}

var cursorQuestions = append([]QuestionPattern{
	// multica#7791/#7803, kprompt#144, escoffier-labs/brigade#205 (the
	// refusal that exits 0); FORMAT.md (HCN, SIRDAR, AGSRV).
	{Phrases: []string{"Workspace Trust Required"}, Fix: cursorTrust,
		Sample: "⚠ Workspace Trust Required\nPass --trust, --yolo, or -f if you trust this directory"},
	// The same prompt's last line, when its box is taller than the
	// lines read.
	{Phrases: []string{"Pass --trust", "if you trust this directory"}, Fix: cursorTrust,
		Sample: "Pass --trust, --yolo, or -f if you trust this directory"},
	// BloopAI/vibe-kanban maps it (FORMAT.md).
	{Phrases: []string{"Press any key to sign in"},
		Fix:    "log in once by hand (cursor-agent login), or set CURSOR_API_KEY",
		Sample: "Press any key to sign in..."},
}, sharedQuestions...)

const cursorTrust = "pass --trust (or --yolo / -f) if you trust this directory, or run cursor-agent there once by hand and trust it"

var cursorUsageKeys = usageKeys{input: "inputTokens", output: "outputTokens", cacheRead: "cacheReadTokens", cacheWrite: "cacheWriteTokens"}
