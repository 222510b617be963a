package stream

import "strconv"

// opencode: its profile, how its json lines are read, the errors it states,
// the questions it asks a person and its names for usage.

// OpenCode is opencode: opencode run --format json. A tool appears only
// when it has ended, so a step_start without its step_finish (paired by
// the part's messageID) is the busy signal, an open call with no declared
// timeout. The last step_finish, reason stop, completes the answer.
var OpenCode = &Profile{
	Name:          "opencode",
	Binaries:      []string{"opencode"},
	Install:       "npm install -g opencode-ai",
	Parse:         func(l Line) Event { return parseWith(l, readOpenCode, openCodeErrors, openCodeModelCalls) },
	errors:        openCodeErrors,
	questions:     openCodeQuestions,
	phases:        map[string]Phase{"step_start": ModelsTurn, "text": Writing},
	modelCalls:    openCodeModelCalls,
	UsageTiming:   UsageAsItGoes,
	CostTiming:    UsageAsItGoes,
	subcommand:    []string{"run"},
	flags:         openCodeFlags,
	formatFlags:   []string{"--format"},
	streaming:     "json",
	modelFlags:    []string{"--model"},
	workspaceFlag: "--dir",
	resumeFlag:    "--session",
}

// openCodeModelCalls: each step is one call to the model (its tools run
// inside it and appear only once done), from step_start to step_finish.
var openCodeModelCalls = modelTable{"step_start": ModelOpens, "step_finish": ModelCloses}

// openCodeFlags are opencode run's options as `opencode run --help`
// prints them (1.18.33, the version scripts/realagents.sh installs and
// checks this table against), read as yargs reads them (see geminiFlags).
var openCodeFlags = flagTable(`
	-h, --help
	-v, --version
	--print-logs
	--log-level <level>
	--pure
	--command <command>
	-c, --continue
	-s, --session <id>
	--fork
	--share
	-m, --model <model>
	--agent <agent>
	--format <format>
	-f, --file <files...>
	--title <title>
	--attach <url>
	-p, --password <password>
	-u, --username <username>
	--dir <dir>
	--port <port>
	--variant <variant>
	--thinking
	-i, --interactive
	--auto
`, "")

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
					messageID = s.rawValue()
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
		if id := messageID.String(); id != "" {
			ev.open(Call{ID: "step:" + id, Kind: "step", Turn: true})
		}
	case "step_finish":
		if id := messageID.String(); id != "" {
			ev.close("step:" + id)
		}
		ev.Terminal = reason == "stop"
		// One step's spending: steps add up.
		ev.spent(withCost(usage, cost, hasCost), UsageDelta, "")
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

var openCodeErrors = &errorTable{
	// anomalyco/opencode#40014: its retry status, "429 Too Many Requests
	// retrying in 59 minutes 12 seconds attempt #15".
	retrying: []string{"retrying in"},
	patterns: append([]ErrorPattern{
		// A recorded opencode error event quoted in a public test (code
		// search: "Insufficient balance. Manage your billing here"); statusCode
		// 401 there, so it comes before the status rules.
		{Kind: Quota, Phrases: []string{"Insufficient balance"},
			Sample:  "APIError: Insufficient balance. Manage your billing here: https://opencode.ai/workspace/wrk_01KZ/billing (HTTP 401)",
			Message: "the opencode account is out of credit: add funds on its billing page"},
		// A captured opencode event in a public design note (code search:
		// "provider.rate-limit"): {"type":"provider.quota","message":"This
		// request requires more credits, …","status":402}.
		{Kind: Quota, Phrases: []string{"provider.quota"},
			Sample: "provider.quota: This request requires more credits, or fewer max_tokens. (HTTP 402)"},
		// The same note: {"type":"provider.rate-limit","message":"Error 429:
		// You have reached your weekly ExamplePass limit. The limit resets in
		// 1d 5h, please try again later.","status":429}.
		{Kind: RateLimit, Phrases: []string{"provider.rate-limit"},
			Sample: "provider.rate-limit: Error 429: You have reached your weekly ExamplePass limit. The limit resets in 1d 5h, please try again later. (HTTP 429)"},
		// anomalyco/opencode#47747 (a provider's 429 through opencode).
		{Kind: RateLimit, Phrases: []string{"Rate limit exceeded"},
			Sample: `Error: OpenAI API error (429): {"param":null,"code":"rate_limit_exceeded","type":"rate_limit_error","message":"Error from provider (Console Go): Upstream request failed: [rate_limit_exceeded] Rate limit exceeded. Please retry after a brief wait."}`},
		// anomalyco/opencode#50593 (1.18, a fresh opencode run).
		{Kind: Auth, Phrases: []string{"Invalid credential"},
			Sample:  "AI_APICallError: Upstream request failed: Invalid credential",
			Message: "opencode's provider rejected the credentials: run `opencode auth login`, or fix the key in its config"},
		// opencode's APIError carries the provider's HTTP status; the parser
		// adds it as "(HTTP N)". "Invalid Authentication" with 401 is in a
		// public write-up of a local run (code search: "Invalid
		// Authentication","statusCode":401).
		{Kind: RateLimit, Phrases: []string{"(HTTP 429)"}, Sample: "APIError: Too Many Requests (HTTP 429)"},
		{Kind: Quota, Phrases: []string{"(HTTP 402)"}, Sample: "APIError: Payment Required (HTTP 402)"},
		{Kind: Auth, Phrases: []string{"(HTTP 401)"}, Sample: "APIError: Invalid Authentication (HTTP 401)",
			Message: "opencode's provider rejected the credentials: run `opencode auth login`, or fix the key in its config"},
	}, networkErrors...),
}

var openCodeQuestions = append([]QuestionPattern{
	{Phrases: []string{"opencode auth login"},
		Fix:    "log in once by hand (opencode auth login), or set the provider's API key",
		Sample: "No provider configured. Run opencode auth login"},
}, sharedQuestions...)

var openCodeUsageKeys = usageKeys{input: "input", output: "output", reasoning: "reasoning", cache: "cache"}
