package stream

import "strings"

// Gemini CLI: its profile, how its stream-json lines are read, the errors
// it states, the questions it asks a person and its names for usage.

// Gemini is Gemini CLI: gemini -p PROMPT --output-format stream-json. Tools
// pair tool_use and tool_result by tool_id; the terminal event is result.
// It resumes sessions by list index only, so a restart reruns the command.
var Gemini = &Profile{
	Name:          "gemini",
	Binaries:      []string{"gemini"},
	Install:       "npm install -g @google/gemini-cli",
	Parse:         func(l Line) Event { return parseWith(l, readGemini, geminiErrors, geminiModelCalls) },
	errors:        geminiErrors,
	questions:     geminiQuestions,
	phases:        map[string]Phase{"init": SessionOpened, "tool_result": ModelsTurn},
	modelCalls:    geminiModelCalls,
	UsageTiming:   UsageAtEnd,
	flags:         geminiFlags,
	printFlags:    []string{"-p", "--prompt"},
	promptIsValue: true,
	formatFlags:   []string{"-o", "--output-format"},
	streaming:     "stream-json",
	modelFlags:    []string{"--model", "-m"},
	runtime:       "node",
}

// geminiModelCalls: the model has the prompt once the session opens and a
// tool's result once it is written back; its words stream as assistant
// message deltas until a tool takes over or the result ends the run.
// Gemini CLI relaunches itself as a child node with memory flags (its
// Runtime) unless GEMINI_CLI_NO_RELAUNCH is set.
var geminiModelCalls = modelTable{"init": ModelOpens, "tool_result": ModelOpens, "tool_use": ModelCloses, "result": ModelCloses}

// geminiFlags are Gemini CLI's options as `gemini --help` prints them
// (0.61.0, the version scripts/realagents.sh installs and checks this
// table against): yargs' [string] and [number] take one value, [array]
// the values up to the next flag, [boolean] none.
var geminiFlags = flagTable(`
	-d, --debug
	-m, --model <model>
	-p, --prompt <prompt>
	-i, --prompt-interactive <prompt>
	--skip-trust
	-w, --worktree <name>
	-s, --sandbox
	-y, --yolo
	--approval-mode <mode>
	--policy <files...>
	--admin-policy <files...>
	--acp
	--experimental-acp
	--allowed-mcp-server-names <names...>
	--allowed-tools <tools...>
	-e, --extensions <extensions...>
	-l, --list-extensions
	-r, --resume <session>
	--session-file <file>
	--session-id <uuid>
	--list-sessions
	--delete-session <index>
	--include-directories <dirs...>
	--screen-reader
	-o, --output-format <format>
	--raw-output
	--accept-raw-output-risk
	-v, --version
	-h, --help
`, "")

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
			ev.open(c)
		}
	case "tool_result":
		if toolID != "" {
			ev.close(toolID)
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

var geminiErrors = &errorTable{
	// The gemini-D capture's stderr: "Attempt 1 failed. Retrying with
	// backoff... Error: exception TypeError: fetch failed sending request";
	// gke-labs/gemini-for-kubernetes-development#1215 has the 429 form.
	retrying: []string{"Retrying with backoff"},
	patterns: append([]ErrorPattern{
		// Priivacy-ai/spec-kitty research/03-google-gemini.md (gemini 0.24.0,
		// JSON output, error code 41).
		{Kind: Auth, Phrases: []string{"Please set an Auth method"},
			Sample:  "Please set an Auth method in your /Users/robert/.gemini/settings.json...",
			Message: "Gemini CLI has no credentials: set GEMINI_API_KEY or choose an auth method in ~/.gemini/settings.json"},
		// catlog22/Claude-Code-Workflow#72; google-gemini/gemini-cli#20927
		// quotes it as the old message.
		{Kind: Auth, Phrases: []string{"must specify the GEMINI_API_KEY"},
			Sample:  "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
			Message: "Gemini CLI has no API key: set GEMINI_API_KEY"},
		// Digital-Process-Tools/claude-remember#532 (gemini 0.57.0, expired
		// OAuth login).
		{Kind: Auth, Phrases: []string{"credentials are not valid"},
			Sample:  "Cached credentials are not valid: invalid_grant",
			Message: "Gemini CLI's login expired: log in again (run gemini once interactively) or set GEMINI_API_KEY"},
		// google-gemini/gemini-cli#1088, #1905, #19976: RESOURCE_EXHAUSTED,
		// "Resource has been exhausted", "Resource exhausted" (Vertex).
		{Kind: RateLimit, Phrases: []string{"resource", "exhausted"},
			Sample: `[API Error: {"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n","code":429,"status":"Too Many Requests"}}]`},
		// google-gemini/gemini-cli#1088.
		{Kind: RateLimit, Phrases: []string{"429 Too Many Requests"},
			Sample: "[API Error: got status: 429 Too Many Requests."},
		// The gemini-D capture (the failure its retries report).
		{Kind: Network, Phrases: []string{"fetch failed"},
			Sample: "Error: exception TypeError: fetch failed sending request"},
	}, networkErrors...),
}

var geminiQuestions = append([]QuestionPattern{
	// Gemini CLI's folder trust; REAL_AGENTS.md runs it with --skip-trust.
	{Phrases: []string{"Do you trust this folder"},
		Fix:    "pass --skip-trust, or trust the folder once by hand",
		Sample: "Do you trust this folder?"},
	{Phrases: []string{"Waiting for auth"},
		Fix:    "log in once by hand, or set GEMINI_API_KEY",
		Sample: "Waiting for auth... (Press ESC or CTRL+C to cancel)"},
}, sharedQuestions...)

var geminiUsageKeys = usageKeys{input: "input_tokens", output: "output_tokens", cacheRead: "cached", inputHasCache: true, total: "total_tokens"}
