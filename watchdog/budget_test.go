package watchdog

import (
	"strings"
	"testing"
	"time"

	"cursor-wrap/stream"
)

// message is a Claude-shaped assistant event: its message's usage so far.
func message(id string, in, out int64) stream.Event {
	return stream.Event{Type: "assistant", Usage: &stream.Usage{Input: in, Output: out, CacheRead: 50000}, UsageScope: stream.UsageMessage, UsageID: id}
}

// TestTokenBudget: the total of input and output tokens (never cache reads)
// passing max_tokens is a hang of kind budget at once, whatever the idle
// rule says, with the budget, its limit and the total in the reason; a
// message repeated on each of its blocks counts once.
func TestTokenBudget(t *testing.T) {
	th := testThresholds()
	th.MaxTokens = 1000
	w := New(th, t0)
	w.ProcessEvent(message("m1", 300, 200), t0.Add(time.Second))
	w.ProcessEvent(message("m1", 300, 200), t0.Add(2*time.Second)) // the same message's next block
	w.ProcessEvent(stream.Event{Type: "tool_call", Started: []stream.Call{{ID: "c1", Kind: "shell"}}}, t0.Add(2*time.Second))
	if v := w.Decide(t0.Add(3 * time.Second)).Verdict; v == Hang {
		t.Fatalf("500 tokens of 1000: %v", v)
	}
	if u, ok := w.Usage(); !ok || u.Tokens() != 500 || u.CacheRead != 50000 {
		t.Fatalf("usage %+v, reported %v", u, ok)
	}
	n := w.ProcessEvent(message("m2", 400, 101), t0.Add(4*time.Second))
	if n&UsageChanged == 0 || n&PassedAtEnd != 0 {
		t.Errorf("notice %b", n)
	}
	v, r := w.Check(t0.Add(4 * time.Second))
	if v != Hang || r.Kind != KindBudget || r.Budget != BudgetTokens || r.Limit != 1000 || r.Total != 1001 {
		t.Fatalf("1001 tokens of 1000: %v %+v", v, r)
	}
	want := "the agent reported 1,001 tokens of input, cache writes and output, past the max_tokens budget of 1,000"
	if s := r.Describe(); s != want {
		t.Errorf("Describe: %s\nwant      %s", s, want)
	}
	var back Reason
	b, _ := r.MarshalJSON()
	if err := back.UnmarshalJSON(b); err != nil || back.Budget != r.Budget || back.Limit != r.Limit || back.Total != r.Total ||
		!strings.Contains(string(b), `"budget":"max_tokens","budget_limit":1000,"budget_total":1001`) {
		t.Errorf("round trip %s: %+v, %v", b, back, err)
	}
}

// TestTokenBudgetCountsCacheWrites: cache writes are billed as input and
// count towards max_tokens, from the message that reports them; cache
// reads do not.
func TestTokenBudgetCountsCacheWrites(t *testing.T) {
	th := testThresholds()
	th.MaxTokens = 1000
	w := New(th, t0)
	first := stream.Event{Type: "assistant", Usage: &stream.Usage{Input: 3, CacheWrite: 990, CacheRead: 90000, Output: 1}, UsageScope: stream.UsageMessage, UsageID: "m1"}
	w.ProcessEvent(first, t0.Add(time.Second))
	if v := w.Decide(t0.Add(time.Second)).Verdict; v == Hang {
		t.Fatalf("994 tokens of 1000: %v", v)
	}
	next := stream.Event{Type: "assistant", Usage: &stream.Usage{Input: 2, CacheWrite: 8, Output: 1}, UsageScope: stream.UsageMessage, UsageID: "m2"}
	w.ProcessEvent(next, t0.Add(2*time.Second))
	v, r := w.Check(t0.Add(2 * time.Second))
	if v != Hang || r.Kind != KindBudget || r.Total != 1005 {
		t.Fatalf("1005 tokens of 1000: %v %+v", v, r)
	}
	if want := "the agent reported 1,005 tokens of input, cache writes and output, past the max_tokens budget of 1,000"; r.Describe() != want {
		t.Errorf("Describe: %s\nwant      %s", r.Describe(), want)
	}
}

// TestCostBudget: only a cost the agent stated counts against
// max_cost_usd; a run whose agent states none is never stopped by it.
func TestCostBudget(t *testing.T) {
	th := testThresholds()
	th.MaxCostUSD = 0.05
	w := New(th, t0)
	w.ProcessEvent(stream.Event{Type: "step_finish", Usage: &stream.Usage{Input: 1e6, Output: 1e6}}, t0.Add(time.Second))
	if v := w.Decide(t0.Add(time.Second)).Verdict; v == Hang {
		t.Fatalf("no cost stated: %v", v)
	}
	w.ProcessEvent(stream.Event{Type: "step_finish", Usage: &stream.Usage{CostUSD: 0.03, HasCost: true}}, t0.Add(2*time.Second))
	w.ProcessEvent(stream.Event{Type: "step_finish", Usage: &stream.Usage{CostUSD: 0.0201, HasCost: true}}, t0.Add(3*time.Second))
	v, r := w.Check(t0.Add(3 * time.Second))
	if v != Hang || r.Kind != KindBudget || r.Budget != BudgetCost {
		t.Fatalf("$0.0501 of $0.05: %v %+v", v, r)
	}
	if s, want := r.Describe(), "the agent stated a cost of $0.0501, past the max_cost_usd budget of $0.05"; s != want {
		t.Errorf("Describe: %s\nwant      %s", s, want)
	}
}

// TestBudgetReloaded: a budget lowered below what the run has spent stops
// it at the next check; a raised one lets it go on.
func TestBudgetReloaded(t *testing.T) {
	th := testThresholds()
	w := New(th, t0)
	w.ProcessEvent(message("m1", 3000, 1000), t0.Add(time.Second))
	if v := w.Decide(t0.Add(2 * time.Second)).Verdict; v != OK {
		t.Fatalf("no budget: %v", v)
	}
	th.MaxTokens = 2000
	w.SetThresholds(th)
	if v, r := w.Check(t0.Add(2 * time.Second)); v != Hang || r.Kind != KindBudget || r.Total != 4000 {
		t.Fatalf("lowered to 2000: %v %+v", v, r)
	}
	th.MaxTokens = 5000
	w.SetThresholds(th)
	if v := w.Decide(t0.Add(2 * time.Second)).Verdict; v != OK {
		t.Errorf("raised to 5000: %v", v)
	}
}

// TestBudgetAtEnd: a total that passes a budget only in the terminal
// event (an agent that reports in its result alone) stops nothing, since
// the run is over; it is a notice, given once.
func TestBudgetAtEnd(t *testing.T) {
	th := testThresholds()
	th.MaxTokens = 100
	w := New(th, t0)
	result := stream.Event{Type: "result", Terminal: true, Usage: &stream.Usage{Input: 90, Output: 20}, UsageScope: stream.UsageTotal}
	if n := w.ProcessEvent(result, t0.Add(time.Second)); n&PassedAtEnd == 0 {
		t.Errorf("notice %b", n)
	}
	if v, r := w.Check(t0.Add(time.Second)); v != OK || r.Kind == KindBudget {
		t.Errorf("after the result: %v %+v", v, r)
	}
	result.Usage = &stream.Usage{Input: 90, Output: 30}
	if n := w.ProcessEvent(result, t0.Add(2*time.Second)); n&PassedAtEnd != 0 {
		t.Errorf("a second time: notice %b", n)
	}
}

// TestBudgetCountsEarlierAttempts: what the run's earlier attempts spent
// counts against the budget; Usage is this attempt's alone.
func TestBudgetCountsEarlierAttempts(t *testing.T) {
	th := testThresholds()
	th.MaxTokens, th.MaxCostUSD = 1000, 1
	w := New(th, t0)
	w.SpentBefore(stream.Usage{Input: 600, Output: 100, CostUSD: 0.75, HasCost: true})
	w.ProcessEvent(message("m1", 200, 100), t0.Add(time.Second))
	if v := w.Decide(t0.Add(time.Second)).Verdict; v != OK {
		t.Fatalf("1000 tokens of 1000, over two attempts: %v", v)
	}
	w.ProcessEvent(message("m1", 200, 101), t0.Add(2*time.Second))
	if v, r := w.Check(t0.Add(2 * time.Second)); v != Hang || r.Total != 1001 {
		t.Errorf("1001 tokens over two attempts: %v %+v", v, r)
	}
	if u, _ := w.Usage(); u.Tokens() != 301 {
		t.Errorf("this attempt's usage %+v", u)
	}
	w = New(th, t0)
	w.SpentBefore(stream.Usage{CostUSD: 0.75, HasCost: true})
	w.ProcessEvent(stream.Event{Type: "step_finish", Usage: &stream.Usage{CostUSD: 0.3, HasCost: true}}, t0.Add(time.Second))
	if v, r := w.Check(t0.Add(time.Second)); v != Hang || r.Budget != BudgetCost || r.Total != 1.05 {
		t.Errorf("$1.05 over two attempts: %v %+v", v, r)
	}
}
