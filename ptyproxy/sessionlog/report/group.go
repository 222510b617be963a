package report

import (
	"cmp"
	"slices"
	"time"

	"cursor-wrap/stream"
)

// A Group is the runs of one agent on one day, or of every run (Day and
// Agent "").
type Group struct {
	Day      string `json:"day,omitempty"` // the local date the runs started
	Agent    string `json:"agent,omitempty"`
	Runs     int    `json:"runs"`
	Attempts int    `json:"attempts"`
	// Ended counts the runs by how they ended (Categories).
	Ended    map[string]*Ended `json:"ended"`
	Duration Durations         `json:"duration"`
	Usage    Spent             `json:"usage"`

	durations []time.Duration
}

// Ended is the runs that ended in one category, and by kind within it.
type Ended struct {
	Runs  int            `json:"runs"`
	Kinds map[string]int `json:"kinds,omitempty"`
}

// Durations are the median and 95th percentile of the runs' durations,
// over the runs that ended (an unfinished run has none).
type Durations struct {
	Runs     int   `json:"runs"`
	MedianMS int64 `json:"median_ms"`
	P95MS    int64 `json:"p95_ms"`
}

// Spent is what the runs' agents reported they spent. A run whose agent
// reported nothing is counted apart, never as 0; a cost is the sum of
// those stated.
type Spent struct {
	RunsReported     int      `json:"runs_reported"`
	RunsNotReported  int      `json:"runs_not_reported"`
	InputTokens      int64    `json:"input_tokens"`
	OutputTokens     int64    `json:"output_tokens"`
	CacheReadTokens  int64    `json:"cache_read_tokens"`
	CacheWriteTokens int64    `json:"cache_write_tokens"`
	RunsWithCost     int      `json:"runs_with_cost"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
}

// Day is the local date a run started on, as groups name it.
func Day(t time.Time) string { return t.Local().Format(time.DateOnly) }

// Summarize groups runs by agent and day (by date, then agent) and sums
// them all in total.
func Summarize(runs []Run) (groups []Group, total Group) {
	byKey := map[[2]string]*Group{}
	total = newGroup("", "")
	for _, r := range runs {
		key := [2]string{Day(r.Start), r.Agent}
		g := byKey[key]
		if g == nil {
			ng := newGroup(key[0], key[1])
			g = &ng
			byKey[key] = g
		}
		g.add(r)
		total.add(r)
	}
	for _, g := range byKey {
		g.finish()
		groups = append(groups, *g)
	}
	total.finish()
	slices.SortFunc(groups, func(a, b Group) int { return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Agent, b.Agent)) })
	return groups, total
}

func newGroup(day, agent string) Group {
	return Group{Day: day, Agent: agent, Ended: map[string]*Ended{}}
}

func (g *Group) add(r Run) {
	g.Runs++
	g.Attempts += r.Attempts
	category, kind := r.Outcome()
	e := g.Ended[category]
	if e == nil {
		e = &Ended{}
		g.Ended[category] = e
	}
	e.Runs++
	if kind != "" {
		if e.Kinds == nil {
			e.Kinds = map[string]int{}
		}
		e.Kinds[kind]++
	}
	if d, ok := r.Duration(); ok {
		g.durations = append(g.durations, d)
	}
	u, s := r.Usage, &g.Usage
	if u == nil {
		s.RunsNotReported++
		return
	}
	s.RunsReported++
	// Summed as a run's attempts are, saturating: a crafted log's counts
	// never wrap the day's or the agent's total negative.
	sum := stream.Usage{Input: s.InputTokens, Output: s.OutputTokens, CacheRead: s.CacheReadTokens, CacheWrite: s.CacheWriteTokens}.Plus(*u)
	s.InputTokens, s.OutputTokens, s.CacheReadTokens, s.CacheWriteTokens = sum.Input, sum.Output, sum.CacheRead, sum.CacheWrite
	if u.HasCost {
		s.RunsWithCost++
		s.CostUSD = new(u.CostUSD + *cmp.Or(s.CostUSD, new(0.0)))
	}
}

// finish works out the percentiles.
func (g *Group) finish() {
	d := g.durations
	slices.Sort(d)
	g.Duration = Durations{Runs: len(d), MedianMS: percentile(d, 50).Milliseconds(), P95MS: percentile(d, 95).Milliseconds()}
}

// percentile is the nearest-rank p-th percentile of sorted d: the
// smallest value at least p percent of them are no greater than.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	rank := (p*len(d) + 99) / 100 // ceil(p/100 · n)
	return d[max(rank, 1)-1]
}
