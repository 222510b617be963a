package stream

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"cursor-wrap/words"
)

// tallied reads a capture with a profile into a Tally, as the run does,
// and keeps the total after each line that changed it.
func tallied(t *testing.T, p *Profile, file string) (Tally, []Usage) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tally Tally
	var steps []Usage
	s := NewSplitter(DefaultKeep, func(l Line) {
		if tally.Add(p.Parse(l)) {
			steps = append(steps, tally.Total())
		}
	})
	s.Write(data)
	s.Flush()
	return tally, steps
}

// TestUsageCaptures reads what each of the five agents reported it spent,
// from the streams their real CLIs wrote (cursor's from public captures:
// it cannot run here), with the total after each change.
func TestUsageCaptures(t *testing.T) {
	t.Parallel()
	const cost1, cost2 = 0.00033, 0.00066
	for _, tc := range []struct {
		file  string
		p     *Profile
		steps []Usage // the running total after each change; the last is the run's
	}{
		// Claude: per message as it goes (its first event's usage), then
		// the result's totals replace the sum.
		{"agents/claude-A", Claude, []Usage{{Input: 50, Output: 1}, {Input: 50, Output: 12, CostUSD: cost1, HasCost: true}}},
		{"agents/claude-B", Claude, []Usage{{Input: 50, Output: 1}, {Input: 100, Output: 2}, {Input: 100, Output: 24, CostUSD: cost2, HasCost: true}}},
		{"agents/claude-C", Claude, nil}, // stalled before its first message
		{"usage/claude-blocks", Claude, []Usage{
			{Input: 3, Output: 8, CacheRead: 15000, CacheWrite: 1200}, // three blocks of one message: once
			{Input: 8, Output: 10, CacheRead: 31200, CacheWrite: 1500},
			{Input: 8, Output: 410, CacheRead: 31200, CacheWrite: 1500, CostUSD: 0.0187, HasCost: true},
		}},
		// With --include-partial-messages: a message counts from its start
		// (input and cache writes), its output at its end (message_delta),
		// and the blocks in between, repeating the start's counts, take
		// nothing back.
		{"usage/claude-partial", Claude, []Usage{
			{Input: 3, Output: 1, CacheRead: 15000, CacheWrite: 200000},
			{Input: 3, Output: 500, CacheRead: 15000, CacheWrite: 200000},
			{Input: 8, Output: 501, CacheRead: 31000, CacheWrite: 200100},
			{Input: 8, Output: 540, CacheRead: 31000, CacheWrite: 200100},
			{Input: 8, Output: 540, CacheRead: 31000, CacheWrite: 200100, CostUSD: 0.91, HasCost: true},
		}},
		{"agents/codex-A", Codex, []Usage{{Input: 50, Output: 12}}},
		{"agents/codex-B", Codex, []Usage{{Input: 100, Output: 24}}},
		{"agents/gemini-A", Gemini, []Usage{{Input: 50, Output: 12}}},
		{"agents/gemini-B", Gemini, []Usage{{Input: 100, Output: 24}}},
		{"agents/gemini-C", Gemini, nil}, // stalled: no result, nothing reported
		{"agents/opencode-A", OpenCode, []Usage{{Input: 50, Output: 12, CostUSD: cost1, HasCost: true}}},
		{"agents/opencode-B", OpenCode, []Usage{{Input: 50, Output: 12, CostUSD: cost1, HasCost: true}, {Input: 100, Output: 24, CostUSD: cost2, HasCost: true}}},
		{"long-shell", Cursor, []Usage{{Input: 41877, Output: 912, CacheRead: 36352}}},
		{"noisy", Cursor, []Usage{{Input: 86214, Output: 377, CacheRead: 14720}}},
		{"normal", Cursor, nil},                                 // a 2026.01 build: no usage on its result
		{"wild/gemini-resource-exhausted", Gemini, []Usage{{}}}, // reported, and 0
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			tally, steps := tallied(t, tc.p, filepath.Join("testdata", tc.file+".jsonl"))
			if len(steps) != len(tc.steps) {
				t.Fatalf("totals %+v\nwant   %+v", steps, tc.steps)
			}
			for i := range steps {
				if !usageNear(steps[i], tc.steps[i]) {
					t.Errorf("total %d: %+v\nwant      %+v", i, steps[i], tc.steps[i])
				}
			}
			if tally.Reported() != (len(tc.steps) > 0) {
				t.Errorf("Reported() = %v after %d changes", tally.Reported(), len(steps))
			}
		})
	}
}

// usageNear compares usages, their costs to a float's rounding.
func usageNear(a, b Usage) bool {
	ca, cb := a.CostUSD, b.CostUSD
	a.CostUSD, b.CostUSD = 0, 0
	return a == b && math.Abs(ca-cb) < 1e-12
}

// TestUsageNormalised: every agent's counts come out in the same terms:
// Input without the cache reads, Output with reasoning counted apart.
func TestUsageNormalised(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p     *Profile
		line  string
		want  *Usage
		scope UsageScope
		id    string
	}{
		// Codex's input_tokens counts the cached ones; its output counts
		// the reasoning already.
		{Codex, `{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":90,"reasoning_output_tokens":60}}`,
			&Usage{Input: 200, CacheRead: 800, Output: 90}, UsageTotal, ""},
		{Codex, `{"type":"turn.failed","error":{"message":"boom"},"usage":{"input_tokens":10,"output_tokens":0}}`,
			&Usage{Input: 10}, UsageTotal, ""},
		// Usage anywhere else is not the run's.
		{Codex, `{"type":"item.completed","usage":{"input_tokens":1}}`, nil, 0, ""},
		// Gemini CLI's input_tokens counts the cached ones, and its total
		// counts thinking tokens its output does not.
		{Gemini, `{"type":"result","status":"success","stats":{"total_tokens":1500,"input_tokens":1000,"output_tokens":200,"cached":600,"input":400}}`,
			&Usage{Input: 400, CacheRead: 600, Output: 500}, UsageTotal, ""},
		// OpenCode counts reasoning apart from output, and cache apart from input.
		{OpenCode, `{"type":"step_finish","part":{"messageID":"m","reason":"tool-calls","tokens":{"total":1,"input":20,"output":30,"reasoning":40,"cache":{"read":500,"write":60}},"cost":0.25}}`,
			&Usage{Input: 20, Output: 70, CacheRead: 500, CacheWrite: 60, CostUSD: 0.25, HasCost: true}, UsageDelta, ""},
		{OpenCode, `{"type":"step_finish","part":{"messageID":"m","reason":"stop","tokens":{"input":1,"output":2}}}`,
			&Usage{Input: 1, Output: 2}, UsageDelta, ""},
		{Claude, `{"type":"assistant","message":{"id":"msg_1","content":[],"usage":{"input_tokens":4,"cache_creation_input_tokens":5,"cache_read_input_tokens":6,"output_tokens":7}}}`,
			&Usage{Input: 4, CacheWrite: 5, CacheRead: 6, Output: 7}, UsageMessage, "msg_1"},
		// A message without an id cannot be counted once: not counted.
		{Claude, `{"type":"assistant","message":{"content":[],"usage":{"input_tokens":4}}}`, nil, 0, ""},
		// A result that states a cost and no tokens.
		{Claude, `{"type":"result","subtype":"success","result":"x","total_cost_usd":0.5}`,
			&Usage{CostUSD: 0.5, HasCost: true}, UsageTotal, ""},
		{Cursor, `{"type":"result","subtype":"success","result":"x","usage":{"inputTokens":5,"outputTokens":6,"cacheReadTokens":7,"cacheWriteTokens":8}}`,
			&Usage{Input: 5, Output: 6, CacheRead: 7, CacheWrite: 8}, UsageTotal, ""},
		{Cursor, `{"type":"assistant","usage":{"inputTokens":5}}`, nil, 0, ""},
		// Crafted counts: negative ones, strings, a cost that is not one.
		{Cursor, `{"type":"result","result":"x","usage":{"inputTokens":-5,"outputTokens":"6","cacheReadTokens":1e30}}`,
			&Usage{}, UsageTotal, ""},
		{OpenCode, `{"type":"step_finish","part":{"tokens":{"input":1},"cost":-1}}`, &Usage{Input: 1}, UsageDelta, ""},
		{OpenCode, `{"type":"step_finish","part":{"tokens":null,"cost":"1"}}`, nil, 0, ""},
	} {
		ev := tc.p.Parse(Line{Text: []byte(tc.line), Len: int64(len(tc.line)), Newline: true})
		switch {
		case (ev.Usage == nil) != (tc.want == nil):
			t.Errorf("%s %s: usage %+v, want %+v", tc.p.Name, tc.line, ev.Usage, tc.want)
		case tc.want != nil && (*ev.Usage != *tc.want || ev.UsageScope != tc.scope || ev.UsageID != tc.id):
			t.Errorf("%s %s:\n usage %+v %v %q\nwant  %+v %v %q", tc.p.Name, tc.line, *ev.Usage, ev.UsageScope, ev.UsageID, *tc.want, tc.scope, tc.id)
		}
	}
}

// TestTally walks the three scopes and how they meet.
func TestTally(t *testing.T) {
	t.Parallel()
	u := func(in, out int64) *Usage { return &Usage{Input: in, Output: out} }
	var tally Tally
	if tally.Reported() || tally.Total() != (Usage{}) {
		t.Fatal("a new Tally has a total")
	}
	for i, step := range []struct {
		ev      Event
		changed bool
		want    Usage
	}{
		{Event{Type: "system"}, false, Usage{}},
		{Event{Usage: &Usage{}, UsageScope: UsageDelta}, true, Usage{}}, // the first report, of 0
		{Event{Usage: u(1, 2), UsageScope: UsageDelta}, true, Usage{Input: 1, Output: 2}},
		{Event{Usage: u(10, 1), UsageScope: UsageMessage, UsageID: "a"}, true, Usage{Input: 11, Output: 3}},
		{Event{Usage: u(10, 1), UsageScope: UsageMessage, UsageID: "a"}, false, Usage{Input: 11, Output: 3}},
		{Event{Usage: u(10, 5), UsageScope: UsageMessage, UsageID: "a"}, true, Usage{Input: 11, Output: 7}},
		{Event{Usage: u(4, 4), UsageScope: UsageMessage, UsageID: "b"}, true, Usage{Input: 15, Output: 11}},
		{Event{Usage: &Usage{Input: 100, Output: 50, CostUSD: 1, HasCost: true}, UsageScope: UsageTotal}, true,
			Usage{Input: 100, Output: 50, CostUSD: 1, HasCost: true}},
		// A message counted before the total grows after it: only its growth adds.
		{Event{Usage: u(4, 6), UsageScope: UsageMessage, UsageID: "b"}, true, Usage{Input: 100, Output: 52, CostUSD: 1, HasCost: true}},
		// A later report of the same message that says less takes nothing back.
		{Event{Usage: u(4, 1), UsageScope: UsageMessage, UsageID: "b"}, false, Usage{Input: 100, Output: 52, CostUSD: 1, HasCost: true}},
		// A message's end counts for the last message named.
		{Event{Usage: u(0, 9), UsageScope: UsageMessageEnd}, true, Usage{Input: 100, Output: 55, CostUSD: 1, HasCost: true}},
		{Event{Usage: &Usage{Input: math.MaxInt64}, UsageScope: UsageDelta}, true,
			Usage{Input: math.MaxInt64, Output: 55, CostUSD: 1, HasCost: true}},
	} {
		if changed := tally.Add(step.ev); changed != step.changed || tally.Total() != step.want {
			t.Errorf("step %d: changed %v, total %+v; want %v, %+v", i, changed, tally.Total(), step.changed, step.want)
		}
		if !tally.Reported() && i > 0 {
			t.Errorf("step %d: not reported", i)
		}
	}
	if got := tally.Total().Tokens(); got != math.MaxInt64 {
		t.Errorf("Tokens() = %d, want saturated", got)
	}
}

// TestTokensCountWhatWasBilled: a token budget counts input, cache writes
// and output; cache reads stay out.
func TestTokensCountWhatWasBilled(t *testing.T) {
	t.Parallel()
	u := Usage{Input: 12_024, Output: 1, CacheRead: 3_000_000, CacheWrite: 200_000}
	if got := u.Tokens(); got != 212_025 {
		t.Errorf("Tokens() = %d, want 212,025: input, cache writes and output", got)
	}
	if got := (Usage{CacheWrite: math.MaxInt64, Output: 1}).Tokens(); got != math.MaxInt64 {
		t.Errorf("Tokens() = %d, want saturated", got)
	}
}

// TestUsageTiming: a budget can hold mid-run only for the agents that
// report as they go.
func TestUsageTiming(t *testing.T) {
	t.Parallel()
	want := map[string]UsageTiming{"cursor": UsageAtEnd, "claude": UsageAsItGoes, "codex": UsageAtEnd, "gemini": UsageAtEnd, "opencode": UsageAsItGoes}
	for _, p := range Profiles() {
		if p.UsageTiming != want[p.Name] {
			t.Errorf("%s: UsageTiming %v, want %v", p.Name, p.UsageTiming, want[p.Name])
		}
	}
}

func TestUsageWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		u    *Usage
		want string
	}{
		{nil, "not reported"},
		{&Usage{}, "tokens in 0, out 0"},
		{&Usage{Input: 1200, Output: 340, CacheRead: 9000, CostUSD: 0.0123, HasCost: true}, "tokens in 1,200, out 340, cache read 9,000, write 0, cost $0.0123"},
		{&Usage{Input: 1234567, Output: 12, CostUSD: 12.345, HasCost: true}, "tokens in 1,234,567, out 12, cost $12.35"},
		{&Usage{Input: math.MaxInt64, CostUSD: 0.00066, HasCost: true}, "tokens in 9,223,372,036,854,775,807, out 0, cost $0.00066"},
		{&Usage{CostUSD: 0, HasCost: true}, "tokens in 0, out 0, cost $0"},
		{&Usage{CostUSD: 0.0000123456, HasCost: true}, "tokens in 0, out 0, cost $0.00001235"},
	} {
		if got := words.Reported(tc.u); got != tc.want {
			t.Errorf("words.Reported(%+v) = %q, want %q", tc.u, got, tc.want)
		}
	}
}

func TestUsageShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		u    Usage
		want string
	}{
		{Usage{}, "in 0 out 0"},
		{Usage{Input: 1234, Output: 340, CacheRead: 9000, CacheWrite: 50, CostUSD: 0.0123, HasCost: true}, "in 1.2k out 340 cache 9.1k $0.0123"},
		{Usage{Input: 999, Output: 4_100_000, CacheRead: 2_500_000_000}, "in 999 out 4.1M cache 2.5G"},
	} {
		if got := tc.u.Short(); got != tc.want {
			t.Errorf("Short(%+v) = %q, want %q", tc.u, got, tc.want)
		}
	}
}

// TestSatAdd: counts add as integers until the sum would wrap, then stay
// at the end of the range they ran past.
func TestSatAdd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b, want int64 }{
		{1, 2, 3}, {0, 0, 0}, {-1, -2, -3}, {math.MaxInt64, math.MinInt64, -1},
		{math.MaxInt64, 1, math.MaxInt64}, {1, math.MaxInt64, math.MaxInt64}, {math.MaxInt64, math.MaxInt64, math.MaxInt64},
		{math.MinInt64, -1, math.MinInt64}, {-1, math.MinInt64, math.MinInt64}, {math.MinInt64, math.MinInt64, math.MinInt64},
	} {
		if got := satAdd(tc.a, tc.b); got != tc.want {
			t.Errorf("satAdd(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestStatedCostOfNothing: a cost the agent states as 0 (a free model, a
// cached answer) is stated, and said; one that is negative or not a number
// is not a cost.
func TestStatedCostOfNothing(t *testing.T) {
	t.Parallel()
	for cost, want := range map[string]string{
		"0":       "tokens in 50, out 12, cost $0",
		"0.00033": "tokens in 50, out 12, cost $0.00033",
		"-1":      "tokens in 50, out 12",
		`"0.1"`:   "tokens in 50, out 12",
	} {
		line := `{"type":"result","subtype":"success","is_error":false,"result":"Hi.","session_id":"s","total_cost_usd":` + cost + `,"usage":{"input_tokens":50,"output_tokens":12}}`
		ev := Claude.Parse(physical(line))
		if ev.Usage == nil || ev.Usage.String() != want {
			t.Errorf("total_cost_usd %s: usage %v, want %q", cost, ev.Usage, want)
		}
	}
}
