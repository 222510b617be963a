package stream

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestErrorPatternSamples holds every pattern to the text it was written
// for: its own sample must be classified by it, not by an earlier one.
func TestErrorPatternSamples(t *testing.T) {
	t.Parallel()
	for _, p := range profiles {
		pats := p.ErrorPatterns()
		if len(pats) == 0 {
			t.Errorf("%s has no error patterns", p.Name)
		}
		for _, pat := range pats {
			e := p.Stderr([]byte(pat.Sample))
			if e == nil || e.Kind != pat.Kind || e.Match != pat.Phrases[0] {
				t.Errorf("%s: %q\n got %+v\nwant kind %s by %q", p.Name, pat.Sample, e, pat.Kind, pat.Phrases[0])
				continue
			}
			// Agents change their wording's case between versions: a
			// pattern matches whatever the case, from A to Z.
			for _, text := range []string{strings.ToUpper(pat.Sample), strings.ToLower(pat.Sample)} {
				if e := p.Stderr([]byte(text)); e == nil || e.Kind != pat.Kind {
					t.Errorf("%s: %q gives %+v, want kind %s", p.Name, text, e, pat.Kind)
				}
			}
			if e.Message == "" || strings.Contains(e.Message, "\n") || e.Restart != pat.Kind.Restartable() {
				t.Errorf("%s: %q gives %+v", p.Name, pat.Sample, e)
			}
		}
	}
}

// TestErrorNearMisses lists text that sounds like an error but is not the
// agent stopping: a retry the agent makes itself, a stall (the watchdog's
// business), a harmless notice, wording close to a pattern's.
func TestErrorNearMisses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    *Profile
		text string
	}{
		// anthropics/claude-code#6596, Wei-Shaw/claude-relay-service#56: the
		// CLI retries on its own.
		{Claude, "  ⎿  API Error (Connection error.) · Retrying in 1 seconds… (attempt 1/10)"},
		{Claude, `API Error (429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}) · Retrying in 2892 seconds… (attempt 1/10)`},
		{Claude, "Warning: no stdin data received in 3s, proceeding without it. If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer."},
		{Claude, "Your limit is fine"},
		// The codex-C-idle20s capture.
		{Codex, "Reconnecting... 1/2 (stream disconnected before completion: idle timeout waiting for SSE)"},
		{Codex, "stream disconnected before completion: idle timeout waiting for SSE"},
		{Codex, "Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."},
		{Codex, "Reading additional input from stdin..."},
		{Codex, "Reconnecting... 3/5 (exceeded retry limit, last status: 429 Too Many Requests)"},
		// The gemini-D capture.
		{Gemini, "Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request"},
		{Gemini, "Attempt 2 failed with status 429. Retrying with backoff... _ApiError: RESOURCE_EXHAUSTED"},
		{Gemini, "Loop detected, stopping execution"},
		{Gemini, "resources are limited"},
		// anomalyco/opencode#40014.
		{OpenCode, "error 429 Too Many Requests retrying in 59 minutes 12 seconds attempt #15"},
		{OpenCode, "APIError: Unexpected server error. Check server logs for details."},
		{OpenCode, "APIError: Bad Request (HTTP 400)"},
		{Cursor, "T: Named models available"},
		{Cursor, "the rate limit of this API is 10 per second"},
		{Cursor, "Please update the README to the latest version"},
		{Cursor, "Error: ENOENT: no such file or directory"},
	} {
		if e := tc.p.Stderr([]byte(tc.text)); e != nil {
			t.Errorf("%s: %q classified %+v", tc.p.Name, tc.text, e)
		}
	}
}

// TestCapturedStderr runs the real CLIs' stderr through their profiles:
// warnings, banners, stack traces and retry notices are not errors.
func TestCapturedStderr(t *testing.T) {
	t.Parallel()
	for file, p := range map[string]*Profile{
		"gemini-D.stderr":          Gemini,
		"gemini-B.stderr":          Gemini,
		"claude-stdin-open.stderr": Claude,
		"codex-A.stderr":           Codex,
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "wild", file))
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			if e := p.Stderr(line); e != nil {
				t.Errorf("%s: %q classified %+v", file, line, e)
			}
		}
	}
}

// TestErrorEligibility checks which parts of a stream are read for errors:
// the fields an agent reports its errors in, and plain-text lines; never an
// answer, a message or a tool's output, which may discuss the same words.
func TestErrorEligibility(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    *Profile
		line string
		kind ErrorKind // "" for none
	}{
		// cursor: text lines and failed results only.
		{Cursor, "Error: You've hit your usage limit", Quota},
		{Cursor, "T: Named models unavailable Free plans can only use Auto.", Quota},
		{Cursor, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Error: Authentication required. Please run 'agent login' first"}]},"session_id":"s"}`, ""},
		{Cursor, `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"success":{"stdout":"curl: connect ECONNREFUSED 127.0.0.1:8080"}}}}}`, ""},
		{Cursor, `{"type":"result","subtype":"success","is_error":false,"result":"I hit your usage limit docs: resource_exhausted means back off.","session_id":"s"}`, ""},
		{Cursor, `{"type":"result","subtype":"success","is_error":true,"result":"Error: S: [resource_exhausted] Error","session_id":"s"}`, RateLimit},
		{Cursor, `{"type":"result","result":"ECONNREFUSED`, ""}, // a broken event, not a notice
		// claude: is_error results and assistant messages with an error code.
		{Claude, `{"type":"assistant","message":{"content":[{"type":"text","text":"Invalid API key · Please run /login"}]},"session_id":"s"}`, ""},
		{Claude, `{"type":"assistant","message":{"content":[{"type":"text","text":"Not logged in · Please run /login"}]},"session_id":"s","error":"authentication_failed"}`, Auth},
		{Claude, `{"type":"assistant","message":{"content":[{"type":"text","text":"Credit balance is too low"}]},"error":"billing_error"}`, Quota},
		{Claude, `{"type":"result","subtype":"success","is_error":false,"result":"Rate limited? No: Connection error handling is in retry.go.","session_id":"s"}`, ""},
		{Claude, `{"type":"result","subtype":"success","is_error":true,"result":"You've hit your limit · resets 4:50am (Europe/Rome)","session_id":"s"}`, Quota},
		{Claude, `{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":577.0758387267969,"error_status":429,"error":"rate_limit","session_id":"s"}`, ""},
		{Claude, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"getaddrinfo ENOTFOUND example.invalid","is_error":true}]}}`, ""},
		// codex: the error event and turn.failed.
		{Codex, `{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"You've hit your usage limit. try again in 5 days"}}`, ""},
		{Codex, `{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"curl x","aggregated_output":"connect ENETUNREACH","exit_code":7,"status":"failed"}}`, ""},
		{Codex, `{"type":"item.completed","item":{"id":"item_0","type":"error","message":"401 Unauthorized"}}`, ""},
		{Codex, `{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests, request id: 9c84b52ce87fbe62-SJC"}`, RateLimit},
		{Codex, `{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Missing bearer or basic authentication in header"}}`, Auth},
		// gemini: error events of severity error, results of status error.
		{Gemini, `{"type":"message","timestamp":"t","role":"assistant","content":"RESOURCE_EXHAUSTED means 429","delta":true}`, ""},
		{Gemini, `{"type":"tool_result","timestamp":"t","tool_id":"x","status":"error","output":"","error":{"type":"shell","message":"fetch failed"}}`, ""},
		{Gemini, `{"type":"error","timestamp":"t","severity":"warning","message":"RESOURCE_EXHAUSTED"}`, ""},
		{Gemini, `{"type":"error","timestamp":"t","severity":"error","message":"You exceeded your current quota","status":"RESOURCE_EXHAUSTED"}`, RateLimit},
		{Gemini, `{"type":"result","timestamp":"t","status":"error","error":{"type":"Error","message":"Please set an Auth method in your /home/u/.gemini/settings.json"}}`, Auth},
		// opencode: the error event.
		{OpenCode, `{"type":"text","timestamp":1,"sessionID":"s","part":{"type":"text","text":"Rate limit exceeded is a 429"}}`, ""},
		{OpenCode, `{"type":"error","timestamp":1,"sessionID":"s","error":{"name":"APIError","data":{"message":"Invalid Authentication","statusCode":401,"isRetryable":false}}}`, Auth},
		{OpenCode, `{"type":"error","timestamp":1,"sessionID":"s","error":{"type":"provider.quota","message":"This request requires more credits, or fewer max_tokens.","status":402}}`, Quota},
		{OpenCode, `{"type":"error","timestamp":1,"sessionID":"s","error":"ollama refused connection: ECONNREFUSED"}`, Network},
	} {
		ev := tc.p.Parse(Line{Text: []byte(tc.line), Len: int64(len(tc.line)), Newline: true})
		var got ErrorKind
		if ev.Error != nil {
			got = ev.Error.Kind
		}
		if got != tc.kind {
			t.Errorf("%s: %s\n classified %q, want %q", tc.p.Name, tc.line, got, tc.kind)
		}
		if ev.Error != nil && ev.Answer != "" {
			t.Errorf("%s: an error is not an answer: %q", tc.p.Name, ev.Answer)
		}
	}
}

// TestRetryWhen reads the waits agents state.
func TestRetryWhen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p     *Profile
		text  string
		after time.Duration
		at    int64 // Unix seconds, 0 for none
	}{
		// openai/codex#3899.
		{Codex, "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11 minutes.", 5*24*time.Hour + 22*time.Hour + 11*time.Minute, 0},
		// openai/codex#3124.
		{Codex, "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.", 2*24*time.Hour + 17*time.Hour + 14*time.Minute, 0},
		// earendil-works/pi#4172.
		{Codex, `{"type":"error","error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1777936568,"eligible_promo":null,"resets_in_seconds":13872},"status_code":429}`, 13872 * time.Second, 1777936568},
		// anthropics/claude-code#15064.
		{Claude, "Claude AI usage limit reached|1766502000", 0, 1766502000},
		// The opencode event of a public design note (opencode.go).
		{OpenCode, "provider.rate-limit: Error 429: You have reached your weekly ExamplePass limit. The limit resets in 1d 5h, please try again later. (HTTP 429)", 29 * time.Hour, 0},
		// google.rpc.RetryInfo as the Gemini API puts it in an error's
		// details ("retryDelay": "36s"), here inside gemini's escaped message.
		{Gemini, `[API Error: {"error":{"message":"{\n  \"error\": {\n    \"code\": 429,\n    \"status\": \"RESOURCE_EXHAUSTED\",\n    \"details\": [{\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"36s\"}]\n  }\n}\n"}}]`, 36 * time.Second, 0},
		{Gemini, "RESOURCE_EXHAUSTED: Please retry in 36.583126582s.", 36583126582, 0},
		{OpenCode, "APIError: Too Many Requests (HTTP 429) Retry-After: 30", 30 * time.Second, 0},
		// A wait past any clock saturates; it must not wrap to a negative one.
		{Gemini, "RESOURCE_EXHAUSTED: Please retry in 100000000000000000000 days.", math.MaxInt64, 0},
		{Codex, "You've hit your usage limit. Try again in 200000 days 300000 days.", math.MaxInt64, 0},
		// Each amount fits, their sum does not; one that is the largest
		// wait to the nanosecond (2^63 ns as a float).
		{Codex, "You've hit your usage limit. Try again in 60000 days 60000 days.", math.MaxInt64, 0},
		{Gemini, "RESOURCE_EXHAUSTED: Please retry in 9223372036.854775807s.", math.MaxInt64, 0},
		// No wait named.
		{Codex, "exceeded retry limit, last status: 429 Too Many Requests, request id: 9c84b52ce87fbe62-SJC", 0, 0},
	} {
		e := tc.p.Stderr([]byte(tc.text))
		if e == nil {
			t.Errorf("%s: %q not classified", tc.p.Name, tc.text)
			continue
		}
		var at int64
		if !e.RetryAt.IsZero() {
			at = e.RetryAt.Unix()
		}
		if e.RetryAfter != tc.after || at != tc.at {
			t.Errorf("%s: %q\n retry after %v at %d, want %v at %d", tc.p.Name, tc.text, e.RetryAfter, at, tc.after, tc.at)
		}
	}
}

func TestRestartable(t *testing.T) {
	t.Parallel()
	for k, want := range map[ErrorKind]bool{RateLimit: true, Network: true, Quota: false, Auth: false, Update: false} {
		if k.Restartable() != want {
			t.Errorf("%s restartable %v", k, !want)
		}
	}
}

// TestErrorFixtures walks the error streams in testdata/wild as the proxy
// would, and checks the first error each reports, and that none of them
// has an answer.
func TestErrorFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		p    *Profile
		kind ErrorKind
	}{
		{"claude-not-logged-in.jsonl", Claude, Auth},
		{"claude-usage-limit.jsonl", Claude, Quota},
		{"codex-usage-limit.jsonl", Codex, Quota},
		{"codex-rate-limit.jsonl", Codex, RateLimit},
		{"gemini-resource-exhausted.jsonl", Gemini, RateLimit},
		{"opencode-rate-limit.jsonl", OpenCode, RateLimit},
		{"claude-api-error-success.jsonl", Claude, RateLimit},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "wild", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var first *AgentError
		var reply Reply
		j := NewJoiner(DefaultKeep, tc.p.Parse, func(_ Line, ev Event) {
			reply.Add(ev)
			if first == nil {
				first = ev.Error
			}
		})
		s := NewSplitter(DefaultKeep, j.Add)
		s.Write(data)
		s.Flush()
		j.Flush()
		if first == nil || first.Kind != tc.kind || reply.String() != "" {
			t.Errorf("%s: first error %+v, answer %q; want %s and no answer", tc.file, first, reply.String(), tc.kind)
		}
	}
}

// BenchmarkClassify measures the cost of reading a stderr line: a line
// that matches nothing is the common case.
func BenchmarkClassify(b *testing.B) {
	for _, tc := range []struct{ name, line string }{
		{"miss", "    at async GeminiChat.makeApiCallAndProcessStream (file:///home/dev/agents/gemini/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:332326:28)"},
		{"hit", "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11 minutes."},
	} {
		line := []byte(tc.line)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Codex.Stderr(line)
				Gemini.Stderr(line)
			}
		})
	}
}

// TestAgentErrorWait walks a fixed clock: the wait asked for, else the
// time left until the moment named, never below zero.
func TestAgentErrorWait(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		e     AgentError
		wait  time.Duration
		named bool
	}{
		{AgentError{}, 0, false},
		{AgentError{RetryAfter: 30 * time.Second}, 30 * time.Second, true},
		{AgentError{RetryAfter: 30 * time.Second, RetryAt: t0.Add(time.Hour)}, 30 * time.Second, true},
		{AgentError{RetryAt: t0.Add(90 * time.Second)}, 90 * time.Second, true},
		{AgentError{RetryAt: t0.Add(-time.Second)}, 0, true},
	} {
		if wait, named := c.e.Wait(t0); wait != c.wait || named != c.named {
			t.Errorf("step %d: Wait = %v, %v; want %v, %v", i, wait, named, c.wait, c.named)
		}
	}
}
