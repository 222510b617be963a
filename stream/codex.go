package stream

import (
	"slices"
	"time"
)

// Codex CLI: its profile, how its --json lines are read, the errors it
// states, the questions it asks a person and its names for usage.

// Codex is OpenAI's Codex CLI: codex exec --json. A tool starts with
// item.started and ends with item.completed of the same item id; an
// item.completed of type error is informational. The session is
// thread.started's thread_id; the terminal events are turn.completed and
// turn.failed; a session is resumed with codex exec resume ID.
var Codex = &Profile{
	Name:          "codex",
	Binaries:      []string{"codex"},
	Install:       "npm install -g @openai/codex",
	Parse:         func(l Line) Event { return parseWith(l, readCodex, codexErrors, codexModelCalls) },
	errors:        codexErrors,
	questions:     codexQuestions,
	phases:        map[string]Phase{"thread.started": SessionOpened, "turn.started": ModelsTurn},
	modelCalls:    codexModelCalls,
	UsageTiming:   UsageAtEnd,
	subcommand:    []string{"exec", "e"},
	flags:         codexFlags,
	formatFlags:   []string{"--json"},
	modelFlags:    []string{"--model"},
	workspaceFlag: "--cd",
	resumeSub:     "resume",
	runtime:       "codex",
	// Its own stream_idle_timeout_ms (300 s by default) ignores WebSocket
	// pings (openai/codex#43022): past it Codex abandons the request and
	// retries, saying so; a silence of pings only that outlasts it by
	// half a minute is not Codex thinking.
	keepAliveWait: 330 * time.Second,
}

// codexModelCalls: a turn waits on the model from its start to its end,
// except while a tool it asked for runs (an item that starts, until it
// completes). Codex's npm package runs `node codex.js`, which starts the
// native codex binary (its Runtime) and forwards signals to it.
var codexModelCalls = modelTable{"turn.started": ModelOpens, "item.started": ModelCloses, "item.completed": ModelOpens,
	"turn.completed": ModelCloses, "turn.failed": ModelCloses}

// codexFlags are Codex's options as `codex exec --help` and `codex --help`
// print them (0.169.0, the version scripts/realagents.sh installs and
// checks this table against; clap's <FILE>... is written <FILE...>), then
// exec resume's own.
var codexFlags = flagTable(`
	-c, --config <key=value>
	--enable <FEATURE>
	--disable <FEATURE>
	--strict-config
	-i, --image <FILE...>
	-m, --model <MODEL>
	--oss
	--local-provider <OSS_PROVIDER>
	-p, --profile <CONFIG_PROFILE_V2>
	-s, --sandbox <SANDBOX_MODE>
	--approve-for-me
	--dangerously-bypass-approvals-and-sandbox
	--dangerously-bypass-hook-trust
	-C, --cd <DIR>
	--worktree
	--add-dir <DIR>
	--thread-source <SOURCE>
	--cyber-access-program <PROGRAM>
	--skip-git-repo-check
	--trust
	--ephemeral
	--ignore-user-config
	--ignore-rules
	--output-schema <FILE>
	--color <COLOR>
	--json
	-o, --output-last-message <FILE>
	-h, --help
	-V, --version
	--remote <ADDR>
	--remote-auth-token-env <ENV_VAR>
	-a, --ask-for-approval <APPROVAL_POLICY>
	--search
	--no-alt-screen
	--no-daemon
`, `
	--last
	--all
`)

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
			ev.open(Call{ID: item.id, Kind: item.typ, Command: item.command})
		}
	case "item.completed":
		switch {
		case isTool:
			ev.close(item.id)
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

var codexErrors = &errorTable{
	// The codex-C-idle20s capture: {"type":"error","message":"Reconnecting...
	// 1/2 (stream disconnected before completion: …)"}, a retry in progress.
	retrying: []string{"Reconnecting..."},
	patterns: append([]ErrorPattern{
		// openai/codex#31826, openai/codex-plugin-cc#561.
		{Kind: Update, Phrases: []string{"requires a newer version of Codex"},
			Sample:  `{"detail":"The 'gpt-5.6-sol' model requires a newer version of Codex. Please upgrade to the latest app or CLI and try again."}`,
			Message: "codex is too old for this model: update it (npm install -g @openai/codex@latest), then run again"},
		// openai/codex#3899, #3124: the ChatGPT plan's limit, with its wait.
		{Kind: Quota, Phrases: []string{"hit your usage limit"},
			Sample:  "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11 minutes.",
			Message: "the ChatGPT plan's Codex usage limit is reached: wait for the time it names, or upgrade the plan"},
		// earendil-works/pi#4172: the service's error body.
		{Kind: Quota, Phrases: []string{"usage_limit_reached"},
			Sample:  `{"type":"error","error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1777936568,"eligible_promo":null,"resets_in_seconds":13872},"status_code":429}`,
			Message: "the ChatGPT plan's Codex usage limit is reached: wait for the time it names, or upgrade the plan"},
		// openai/codex#10550, #23304, #30471.
		{Kind: RateLimit, Phrases: []string{"429 Too Many Requests"},
			Sample: "exceeded retry limit, last status: 429 Too Many Requests, request id: 9c84b52ce87fbe62-SJC"},
		// openai/codex#31249.
		{Kind: Auth, Phrases: []string{"401 Unauthorized"},
			Sample:  "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header",
			Message: "codex is not logged in or its key is invalid: run `codex login`, or set OPENAI_API_KEY"},
		// openai/codex#12207, #13811, #22472 (after its 5 reconnects).
		{Kind: Network, Phrases: []string{"error sending request for url"},
			Sample: "stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)"},
	}, networkErrors...),
}

var codexQuestions = append([]QuestionPattern{
	{Phrases: []string{"Sign in with ChatGPT"},
		Fix:    "log in once by hand (codex login), or set OPENAI_API_KEY",
		Sample: "Sign in with ChatGPT to use Codex"},
}, sharedQuestions...)

var codexUsageKeys = usageKeys{input: "input_tokens", output: "output_tokens", cacheRead: "cached_input_tokens", cacheWrite: "cache_write_input_tokens", inputHasCache: true}
