package job

import (
	"fmt"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// budgetCaveats says, on the console and in the log, what the budgets in
// th cannot do for the run: a budget is never ignored without a word.
func (j *Job) budgetCaveats(rec *sessionlog.Recorder, th watchdog.Thresholds) {
	for _, words := range j.Cmd.budgetCaveats(th) {
		rec.Write(sessionlog.Warning{Message: words})
		j.console.Warn(words)
	}
}

// budgetCaveats says what the budgets in th cannot do for c, one sentence
// each. A run whose output is no stream of events reports no usage; an
// agent may report it only in its result, when the run is over; and only
// some agents state a cost.
func (c Command) budgetCaveats(th watchdog.Thresholds) []string {
	if th.MaxTokens == 0 && th.MaxCostUSD == 0 {
		return nil
	}
	p := c.Profile
	if c.Mode != stream.Events || p == nil {
		return []string{"the budgets (max_tokens, max_cost_usd) cannot be checked: the agent reports its usage only in a stream of events (--output-format stream-json)"}
	}
	var out []string
	if th.MaxTokens > 0 && p.UsageTiming != stream.UsageAsItGoes {
		out = append(out, fmt.Sprintf("max_tokens can be checked only at the end of the run: %s reports its usage only in its result, so the run cannot be stopped short of the budget", p.Name))
	}
	if th.MaxCostUSD > 0 {
		switch p.CostTiming {
		case stream.UsageAsItGoes:
		case stream.UsageAtEnd:
			out = append(out, fmt.Sprintf("max_cost_usd can be checked only at the end of the run: %s states its cost only in its result, so the run cannot be stopped short of the budget", p.Name))
		default:
			out = append(out, fmt.Sprintf("max_cost_usd cannot be checked: %s states no cost, and none is guessed from a price table (max_tokens can be checked)", p.Name))
		}
	}
	return out
}

// tighter is the smaller of two budgets, 0 being none.
func tighter[N int | float64](a, b N) N {
	if a > 0 && (b == 0 || a < b) {
		return a
	}
	return b
}
