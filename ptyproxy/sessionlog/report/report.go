// Package report reads many session logs at once, a few records of each,
// into runs: how they ended, how long they took and what they spent, per
// agent and per day.
package report

import (
	"cmp"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// ReadAll reads the attempts of the logs at paths, a few logs at a time.
// Skipped counts the logs that do not read; running, those still being
// written, which have no end to report yet.
func ReadAll(paths []string) (attempts []Attempt, skipped, running int) {
	read := make([]Attempt, len(paths))
	state := make([]int8, len(paths)) // 0 read, 1 skipped, 2 running
	var next atomic.Int64
	var wg sync.WaitGroup
	// Twice the processors: a log not in the page cache waits on the disk.
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(paths); i = int(next.Add(1) - 1) {
				a, err := ReadFile(paths[i])
				switch {
				case err != nil:
					state[i] = 1
				case a.Exit == nil && !a.StartFailed && sessionlog.Running(paths[i]):
					state[i] = 2
				default:
					read[i] = a
				}
			}
		})
	}
	wg.Wait()
	for i, s := range state {
		switch s {
		case 0:
			attempts = append(attempts, read[i])
		case 1:
			skipped++
		case 2:
			running++
		}
	}
	return attempts, skipped, running
}

// A Run is the attempts of one run: the first, and those a restart ran.
type Run struct {
	Agent    string
	Start    time.Time
	End      time.Time // zero when its last attempt has no exit record
	Attempts int
	// Last is its last attempt, which says how the run ended.
	Last Attempt
	// Usage is the sum of its attempts' usage; nil when none reported any.
	Usage *stream.Usage
}

// Duration is how long the run took, from its first attempt's start to
// its last one's exit, restarts and their waits included.
func (r Run) Duration() (time.Duration, bool) {
	if r.End.IsZero() {
		return 0, false
	}
	return max(r.End.Sub(r.Start), 0), true
}

// Runs groups attempts into runs, oldest first, as sessionlog.GroupRuns
// does.
func Runs(attempts []Attempt) []Run {
	groups := sessionlog.GroupRuns(attempts, func(a Attempt) sessionlog.RunKey { return a.RunKey })
	runs := make([]Run, len(groups))
	for i, g := range groups {
		r := Run{Agent: g[0].Agent, Start: g[0].Start}
		for _, a := range g {
			r.Attempts++
			r.Last, r.End = a, a.End
			r.Usage = add(r.Usage, a.Usage)
		}
		runs[i] = r
	}
	return runs
}

// add is the sum of two usages, either nil when not reported.
func add(sum, u *stream.Usage) *stream.Usage {
	if u == nil {
		return sum
	}
	s := cmp.Or(sum, &stream.Usage{}).Plus(*u)
	return &s
}

// The categories a run ends in, as the one classifier (sessionlog's
// Ending.Class) names them.
const (
	Answered   = sessionlog.Answered
	Hung       = sessionlog.Hung
	AgentError = sessionlog.AgentError
	Person     = sessionlog.Person
	OverBudget = sessionlog.OverBudget
	Stopped    = sessionlog.Stopped
	Other      = sessionlog.Other
)

// Categories are the categories, in the order a report shows them.
var Categories = sessionlog.Categories

// Outcome is how the run ended: its category, and within it the kind (a
// hang's reason, the budget passed, an agent error's kind, what "other"
// was), as sessionlog's one classifier reads its last attempt.
func (r Run) Outcome() (category, kind string) {
	return r.Last.Class()
}
