package stream

// Each agent's error wording, with where it was seen. A pattern's Sample is
// that text (trimmed to the part that matters, ids kept as found); the
// tests hold each pattern to its sample and to near misses. Patterns are
// tried in order: an update notice that arrives wrapped in a
// resource_exhausted error is an update, so update comes first.
//
// The runtime's own network errors come last in every table: the agents
// are Node or Bun programs (codex's Rust core words its own), and print
// the error code of a failed connect or DNS lookup.

// networkErrors are the connection failures every agent shares.
var networkErrors = []ErrorPattern{
	// Node's DNS failure code. google-gemini/gemini-cli#5746 (gemini,
	// "[API Error: … getaddrinfo ENOTFOUND …]"); continuedev/continue#10924
	// shows the same for api.anthropic.com.
	{Kind: Network, Phrases: []string{"ENOTFOUND"},
		Sample: "[API Error: request to https://cloudcode-pa.googleapis.com/v1internal:countTokens failed, reason: getaddrinfo ENOTFOUND cloudcode-pa.googleapis.com]"},
	// google-gemini/gemini-cli#19908: the temporary DNS failure, named next
	// to ENOTFOUND in the fix the issue links (#19960).
	{Kind: Network, Phrases: []string{"EAI_AGAIN"},
		Sample: "getaddrinfo EAI_AGAIN cloudcode-pa.googleapis.com"},
	// KimYx0207/AI-Coding-Guide-Zh#5 (Claude Code 2.1.50);
	// cursor/cursor#1406 ("connect ECONNREFUSED 127.0.0.1:11434").
	{Kind: Network, Phrases: []string{"ECONNREFUSED"},
		Sample: "Failed to connect to api.anthropic.com: ECONNREFUSED"},
	// Node's connect(2) errors for a missing route. No agent capture was
	// found; the sample is Node's wording ("connect <code> <address>"),
	// constructed.
	{Kind: Network, Phrases: []string{"ENETUNREACH"}, Sample: "connect ENETUNREACH 2607:6bc0::10:443"},
	{Kind: Network, Phrases: []string{"EHOSTUNREACH"}, Sample: "connect EHOSTUNREACH 160.79.104.10:443"},
	{Kind: Network, Phrases: []string{"network is unreachable"}, Sample: "dial tcp: connect: network is unreachable"},
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
