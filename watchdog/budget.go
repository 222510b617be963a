package watchdog

import (
	"math"
	"time"

	"cursor-wrap/stream"
)

// The budgets: the watchdog keeps the running total of what the agent
// reports it spent (a stream.Tally of the events it is fed) and declares
// a hang of KindBudget the moment that total passes MaxTokens (the tokens
// billed: input with cache writes, and output) or MaxCostUSD (a cost the agent stated; none is ever
// guessed). Before the terminal event only: after it the run has ended
// and its spending with it, so a total that passes a budget there (an
// agent that reports only in its result) is a notice, PassedAtEnd.

// spending is the watchdog's side of the budgets.
type spending struct {
	tally  stream.Tally
	before stream.Usage // what the run's earlier attempts reported
	at     time.Time    // when the total last changed
	told   bool         // PassedAtEnd was given
}

// SpentBefore says what the run's earlier attempts reported spending: the
// budgets hold for the run, so a restart does not start their count again.
// Usage still reports this attempt's alone.
func (w *Watchdog) SpentBefore(u stream.Usage) { w.spent.before = u }

// Usage returns what the agent has reported it spent so far, and whether
// it reported anything at all: a run that reports nothing is not one that
// spent nothing.
func (w *Watchdog) Usage() (stream.Usage, bool) {
	return w.spent.tally.Total(), w.spent.tally.Reported()
}

// spend adds an event's usage to the total and says what it changed.
func (w *Watchdog) spend(ev stream.Event, now time.Time) Notice {
	changed := w.spent.tally.Add(ev)
	notice := NoNotice
	if changed {
		w.spent.at = now
		notice |= UsageChanged
	}
	if w.done && (changed || ev.Terminal) && !w.spent.told {
		if budget, _, _ := w.OverBudget(); budget != "" {
			w.spent.told = true
			notice |= PassedAtEnd
		}
	}
	return notice
}

// OverBudget returns the budget the run's total has passed (BudgetTokens
// or BudgetCost), its limit and the total, or "" if it passed none.
func (w *Watchdog) OverBudget() (budget string, limit, total float64) {
	u, b := w.spent.tally.Total(), w.spent.before
	// Each count saturates rather than wraps: so does their sum.
	t := u.Tokens()
	tokens := t + min(b.Tokens(), math.MaxInt64-t)
	if lim := w.th.MaxTokens; lim > 0 && tokens > int64(lim) {
		return BudgetTokens, float64(lim), float64(tokens)
	}
	if lim := w.th.MaxCostUSD; lim > 0 && u.HasCost && u.CostUSD+b.CostUSD > lim {
		return BudgetCost, lim, u.CostUSD + b.CostUSD
	}
	return "", 0, 0
}
