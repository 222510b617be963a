package stream

// Claude Code: its profile, how its stream-json lines are read, the errors
// it states, the questions it asks a person and its names for usage.

// Claude is Claude Code: claude -p --output-format stream-json --verbose.
// A tool starts with a tool_use block in an assistant message (Bash
// declares input.timeout in ms) and ends with the tool_result block whose
// tool_use_id names it; a Task call stays open while its subagent's nested
// events stream. The terminal event is result.
var Claude = &Profile{
	Name:        "claude",
	Binaries:    []string{"claude"},
	Install:     "npm install -g @anthropic-ai/claude-code",
	Parse:       func(l Line) Event { return parseWith(l, readClaude, claudeErrors, claudeModelCalls) },
	errors:      claudeErrors,
	questions:   claudeQuestions,
	phases:      map[string]Phase{"system/init": SessionOpened, "user": ModelsTurn, "assistant": Writing},
	modelCalls:  claudeModelCalls,
	UsageTiming: UsageAsItGoes,
	CostTiming:  UsageAtEnd,
	flags:       claudeFlags,
	printFlags:  []string{"-p", "--print"},
	formatFlags: []string{"--output-format"},
	streaming:   "stream-json",
	extra:       []string{"--verbose"}, // stream-json in print mode requires it
	modelFlags:  []string{"--model"},
	resumeFlag:  "--resume",
}

// claudeModelCalls: without partial messages, the model has the prompt
// once the session opens and a tool's result once it is written back (a
// user line); its next words come as an assistant line, one per content
// block, and a tool it asks for takes over.
var claudeModelCalls = modelTable{"system/init": ModelOpens, "user": ModelOpens, "assistant": ModelCloses, "result": ModelCloses}

// claudeFlags are Claude Code's options: first as `claude --help` prints
// them (2.1.197, the version scripts/realagents.sh installs and checks
// this table against), then the ones it takes but hides (hideHelp in the
// same version's option definitions; --permission-prompt-tool, --max-turns
// and the system prompt files are in the CLI reference besides).
var claudeFlags = flagTable(`
	--add-dir <directories...>
	--agent <agent>
	--agents <json>
	--allow-dangerously-skip-permissions
	--allowedTools, --allowed-tools <tools...>
	--append-system-prompt <prompt>
	--ax-screen-reader
	--bg, --background
	--bare
	--betas <betas...>
	--brief
	--chrome
	-c, --continue
	--dangerously-skip-permissions
	-d, --debug [filter]
	--debug-file <path>
	--disable-slash-commands
	--disallowedTools, --disallowed-tools <tools...>
	--effort <level>
	--exclude-dynamic-system-prompt-sections
	--fallback-model <model>
	--file <specs...>
	--fork-session
	--from-pr [value]
	-h, --help
	--ide
	--include-hook-events
	--include-partial-messages
	--input-format <format>
	--json-schema <schema>
	--max-budget-usd <amount>
	--mcp-config <configs...>
	--model <model>
	-n, --name <name>
	--no-chrome
	--no-session-persistence
	--output-format <format>
	--permission-mode <mode>
	--plugin-dir <path>
	--plugin-url <url>
	-p, --print
	--prompt-suggestions [value]
	--remote-control [name]
	--remote-control-session-name-prefix <prefix>
	--replay-user-messages
	-r, --resume [value]
	--safe-mode
	--session-id <uuid>
	--setting-sources <sources>
	--settings <file-or-json>
	--strict-mcp-config
	--system-prompt <prompt>
	--tmux
	--tools <tools...>
	--verbose
	-v, --version
	-w, --worktree [name]
`, `
	-d2e, --debug-to-stderr
	--init
	--init-only
	--maintenance
	--session-mirror
	--thinking <mode>
	--thinking-display <display>
	--max-thinking-tokens <tokens>
	--max-turns <turns>
	--task-budget <tokens>
	--enable-auth-status
	--permission-prompt-tool <tool>
	--system-prompt-file <file>
	--append-system-prompt-file <file>
	--plan-mode-instructions <instructions>
	--prefill <text>
	--deep-link-origin
	--deep-link-repo <slug>
	--deep-link-last-fetch <ms>
	--prefill-b64 <b64>
	--deep-link-cwd-b64 <b64>
	--resume-session-at <message id>
	--reply-on-resume
	--rewind-files <user-message-id>
	--workload <tag>
	--managed-settings <json>
	--plugin-dir-no-mcp <path>
	--advisor <model>
	--enable-auto-mode
	--channels <servers...>
	--dangerously-load-development-channels <servers...>
	--agent-id <id>
	--agent-name <name>
	--team-name <name>
	--agent-color <color>
	--plan-mode-required
	--parent-session-id <id>
	--teammate-mode <mode>
	--agent-type <type>
	--sdk-url <url>
	--teleport [session]
	--cloud [description|session_id|url]
	--remote [description|session_id|url]
	--rc [name]
`)

// readClaude reads a Claude Code event. Its errors are a result marked
// is_error, whose text is the error, and an assistant message with an
// "error" code (authentication_failed, billing_error, rate_limit, …), whose
// text says it in words.
func readClaude(s *scanner, ev *Event) (errText string) {
	var isError bool
	var errCode string
	var text rawString             // the message's first text block, decoded only for an error
	var session rawString          // on every line; decoded only where it is kept
	var messageID, streamed string // streamed: a stream_event's event type
	var usage, messageUsage, endUsage *Usage
	var cost float64
	var hasCost bool
	s.object(func(key []byte) {
		switch string(key) {
		case "type":
			ev.Type = s.name()
		case "subtype":
			ev.Subtype = s.name()
		case "session_id":
			session = s.rawValue()
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
		case "event":
			streamed, endUsage = readClaudeStreamed(s, &messageID, &messageUsage)
		case "total_cost_usd":
			cost, hasCost = s.cost()
		default:
			s.skip()
		}
	})
	switch ev.Type {
	case "result":
		ev.Terminal = true
		ev.SessionID = session.String()
		// The run's totals: they replace the messages' sum.
		ev.spent(withCost(usage, cost, hasCost), UsageTotal, "")
		if isError {
			// "subtype":"success" with is_error on an API error
			// (anthropics/claude-code#79500): failed all the same.
			errText, ev.Answer, ev.Failed = ev.Answer, "", true
		}
	case "system":
		if ev.Subtype == "init" {
			ev.SessionID = session.String()
		}
	default:
		ev.Answer = ""
		if ev.Type == "assistant" && errCode != "" {
			errText = errCode + ": " + text.String()
		}
		// Each content block of a message is an event repeating the
		// message's usage so far: counted once, by the message's id.
		if (ev.Type == "assistant" || streamed == "message_start") && messageID != "" {
			ev.spent(messageUsage, UsageMessage, messageID)
		}
		// With --include-partial-messages, a message's end says its output.
		if streamed == "message_delta" {
			ev.spent(endUsage, UsageMessageEnd, "")
		}
	}
	return errText
}

// readClaudeStreamed reads the API event a stream_event carries (with
// --include-partial-messages): its type, the id and usage of a
// message_start's message, and the usage a message_delta gives at the
// message's end.
func readClaudeStreamed(s *scanner, id *string, start **Usage) (typ string, end *Usage) {
	s.nested(func(key []byte) {
		switch string(key) {
		case "type":
			typ = s.name()
		case "message":
			s.nested(func(key []byte) {
				switch string(key) {
				case "id":
					*id = s.stringValue()
				case "usage":
					*start = readUsage(s, claudeUsageKeys)
				default:
					s.skip()
				}
			})
		case "usage":
			end = readUsage(s, claudeUsageKeys)
		default:
			s.skip()
		}
	})
	return typ, end
}

// readClaudeBlock reads one content block: a tool_use opens a call, a
// tool_result closes one.
func readClaudeBlock(s *scanner, ev *Event, text *rawString) {
	var typ, id, name, useID string
	var c Call
	s.nested(func(key []byte) {
		switch string(key) {
		case "text":
			if v := s.rawValue(); text.raw == nil {
				*text = v
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
			ev.open(c)
		}
	case "tool_result":
		if useID != "" {
			ev.close(useID)
		}
	}
}

var claudeErrors = &errorTable{
	// anthropics/claude-code#6596: "API Error (Connection error.) · Retrying
	// in 1 seconds… (attempt 1/10)", the CLI retrying on its own.
	retrying: []string{"Retrying in"},
	patterns: append([]ErrorPattern{
		// wen-templari/claude-code-base-azure-pipeline-task#5 (exit 1 in CI),
		// NixOS/nixpkgs#419496.
		{Kind: Update, Phrases: []string{"needs an update"},
			Sample:  "It looks like your version of Claude Code (1.0.51) needs an update.",
			Message: "Claude Code is too old for its service: run `claude update`, then run again"},
		// makecindy/cindy#4924, griffinmartin/opencode-claude-auth#284.
		{Kind: Update, Phrases: []string{"or newer is required"},
			Sample:  "API Error: 400 Claude Code 2.1.259 does not support this model; version 2.1.280 or newer is required. Run 'claude update', or update the Claude desktop app, then try again.",
			Message: "Claude Code is too old for this model: run `claude update`, then run again"},
		// CherryHQ/cherry-studio#16634 (a gateway's wording, through Claude Code).
		{Kind: Update, Phrases: []string{"below the minimum required version"},
			Sample:  "Your Claude Code version (2.1.112) is below the minimum required version (2.1.151). Please update: npm update -g @anthropic-ai/claude-code",
			Message: "Claude Code is too old for its service: run `claude update`, then run again"},
		// anthropics/claude-code#867, #4208.
		{Kind: Quota, Phrases: []string{"credit balance", "too low"},
			Sample:  "Credit balance is too low · Add funds: https://console.anthropic.com/settings/billing",
			Message: "the Anthropic account is out of credit: add funds in the console billing page"},
		// The assistant message's "error" field, one of the Agent SDK's
		// AssistantMessageError values (authentication_failed, billing_error,
		// rate_limit, invalid_request, server_error, unknown; mirrored in the
		// turboclaude-protocol docs). The parser puts it first in the text;
		// the sample is the code alone, as the words after it vary.
		{Kind: Quota, Phrases: []string{"billing_error"},
			Sample:  "billing_error",
			Message: "the Anthropic account is out of credit: add funds in the console billing page"},
		// anthropics/claude-code#15064; ccusage/ccusage#219 reads the Unix
		// time after the bar.
		{Kind: Quota, Phrases: []string{"usage limit reached"},
			Sample:  "Claude AI usage limit reached|1766502000",
			Message: "the Claude plan's usage limit is reached: wait for the reset it names"},
		// anthropics/claude-code#52575, #74079 ("You've hit your session
		// limit · resets 12:50am (America/Los_Angeles)"), #24687.
		{Kind: Quota, Phrases: []string{"hit your", "limit", "resets"},
			Sample:  "You've hit your limit · resets 4:50am (Europe/Rome)",
			Message: "the Claude plan's usage limit is reached: wait for the reset it names"},
		// anthropics/claude-code#49330, #15064: the API's 429 body.
		{Kind: RateLimit, Phrases: []string{"rate_limit"},
			Sample: `API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}`},
		// anthropics/claude-code#69023.
		{Kind: RateLimit, Phrases: []string{"Rate limited"},
			Sample: "API Error: Request rejected (429) · Rate limited. Please try again later."},
		// The API's 529 error type (platform.claude.com error docs:
		// overloaded_error); anomalyco/opencode#1057 quotes the body.
		{Kind: RateLimit, Phrases: []string{"overloaded_error"},
			Sample: `{"type":"overloaded_error","message":"Overloaded"}`},
		// anthropics/claude-code#6270, #1665; the Agent SDK's
		// authentication_failed error code comes first in the parser's text
		// (e.g. "authentication_failed: Not logged in · Please run /login").
		{Kind: Auth, Phrases: []string{"/login"},
			Sample:  "Invalid API key · Please run /login",
			Message: "Claude Code is not logged in or its key is invalid: run `claude /login` or set ANTHROPIC_API_KEY"},
		{Kind: Auth, Phrases: []string{"authentication_failed"},
			Sample:  "authentication_failed: Failed to authenticate: OAuth session expired and could not be refreshed",
			Message: "Claude Code's login expired or its key is invalid: log in again or set ANTHROPIC_API_KEY"},
		// anthropics/claude-code#5666 (claude -p with a Max login).
		{Kind: Auth, Phrases: []string{"Invalid API key"},
			Sample:  "Invalid API key · Fix external API key",
			Message: "Claude Code's API key is invalid: fix ANTHROPIC_API_KEY or unset it to use the login"},
		// anthropics/claude-code#71188, aipoch/open-science#1548.
		{Kind: Network, Phrases: []string{"Unable to connect to API"},
			Sample: "API Error: Unable to connect to API (ConnectionRefused)"},
		// anthropics/claude-code#4574, #6596: the final form, once the
		// retries ("· Retrying in …") are spent.
		{Kind: Network, Phrases: []string{"Connection error"},
			Sample: "API Error: Connection error."},
	}, networkErrors...),
}

var claudeQuestions = append([]QuestionPattern{
	// scchearn/hcom-mcp#1: the trust dialog of a headless run.
	{Phrases: []string{"Do you trust the files in this folder"},
		Fix:    "run claude in this directory once by hand and trust it",
		Sample: "Do you trust the files in this folder?"},
	// SiderealPress/Lobster#92: claude auth login prints a URL and waits.
	{Phrases: []string{"Paste code here if prompted"},
		Fix:    "log in once by hand (claude auth login), or set ANTHROPIC_API_KEY",
		Sample: "Browser didn't open? Use the url below to sign in\nPaste code here if prompted >"},
}, sharedQuestions...)

var claudeUsageKeys = usageKeys{input: "input_tokens", output: "output_tokens", cacheRead: "cache_read_input_tokens", cacheWrite: "cache_creation_input_tokens"}
