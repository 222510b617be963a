package mcpserver

import (
	"context"
	"slices"
	"sync"
)

// A gate bounds how many agents run at once ([mcp] max_concurrent). Runs
// over the bound wait in arrival order.
type gate struct {
	mu      sync.Mutex
	running int
	limit   int
	queue   []chan struct{} // closed when its run may start
}

func newGate(limit int) *gate { return &gate{limit: max(limit, 1)} }

// enter waits for a slot, or for ctx. waiting is called when the run has
// to queue. The returned func gives the slot back.
func (g *gate) enter(ctx context.Context, waiting func()) (leave func(), err error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	g.mu.Lock()
	if g.running < g.limit && len(g.queue) == 0 {
		g.running++
		g.mu.Unlock()
		return g.leave, nil
	}
	ch := make(chan struct{})
	g.queue = append(g.queue, ch)
	g.mu.Unlock()
	waiting()
	select {
	case <-ch:
		return g.leave, nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		if i := slices.Index(g.queue, ch); i >= 0 {
			g.queue = slices.Delete(g.queue, i, i+1)
		} else {
			// Admitted as ctx ended: the slot goes to the next in line.
			g.running--
			g.admit()
		}
		return nil, context.Cause(ctx)
	}
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	g.admit()
}

// admit starts waiting calls while there is room.
func (g *gate) admit() {
	for g.running < g.limit && len(g.queue) > 0 {
		close(g.queue[0])
		g.queue = g.queue[1:]
		g.running++
	}
}

// setLimit changes the bound; a higher one starts waiting calls at once,
// a lower one lets running calls finish.
func (g *gate) setLimit(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.limit = max(n, 1)
	g.admit()
}

// counts returns how many agents run, and the bound.
func (g *gate) counts() (running, limit int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running, g.limit
}
