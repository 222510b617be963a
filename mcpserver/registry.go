package mcpserver

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Bounds on the runs a server keeps (docs/mcp.md). A run that
// runs or waits for a slot is kept until it ends; then a start_agent run's
// result is kept for wait_agent until keepFor has passed or keepEnded
// newer results are kept, whichever comes first. A run_agent run is
// dropped when it ends: its call has the result.
const (
	maxLive   = 256       // runs queued or running at once; a start beyond is refused
	keepEnded = 64        // ended runs whose result is kept
	keepFor   = time.Hour // how long an ended run's result is kept
)

// A registry holds the server's runs by id.
type registry struct {
	mu   sync.Mutex
	runs map[string]*run
	live int
	// The bounds, fixed by New; tests lower them, and move the clock on
	// past keepFor.
	maxLive, keepEnded int
	now                func() time.Time
}

func newRegistry() *registry {
	return &registry{runs: map[string]*run{}, maxLive: maxLive, keepEnded: keepEnded, now: time.Now}
}

// add registers a new run, unless maxLive runs are queued or running.
func (g *registry) add(r *run) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.live >= g.maxLive {
		return false
	}
	g.live++
	g.runs[r.id] = r
	return true
}

// ended moves a run to the kept results, or drops it.
func (g *registry) ended(r *run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live--
	if r.tool == toolRunAgent {
		delete(g.runs, r.id)
	}
	g.prune()
}

// get returns the run with id, nil if there is none (any more).
func (g *registry) get(id string) *run {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.prune()
	return g.runs[id]
}

// list returns the runs, newest first.
func (g *registry) list() []*run {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.prune()
	out := make([]*run, 0, len(g.runs))
	for _, r := range g.runs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *run) int { return b.arrived.Compare(a.arrived) })
	return out
}

// prune drops the ended runs past keepFor, then the oldest ended ones
// over keepEnded.
func (g *registry) prune() {
	now := g.now()
	type ended struct {
		r  *run
		at time.Time
	}
	var kept []ended
	for id, r := range g.runs {
		r.mu.Lock()
		at := r.endedAt
		r.mu.Unlock()
		switch {
		case at.IsZero():
		case now.Sub(at) >= keepFor:
			delete(g.runs, id)
		default:
			kept = append(kept, ended{r, at})
		}
	}
	if over := len(kept) - g.keepEnded; over > 0 {
		slices.SortFunc(kept, func(a, b ended) int { return cmp.Compare(a.at.UnixNano(), b.at.UnixNano()) })
		for _, e := range kept[:over] {
			delete(g.runs, e.r.id)
		}
	}
}
