package watchdog

import (
	"container/heap"
	"time"
)

// Stopped records that the agent's whole tree was stopped from from until
// to, as job control does (the user's Ctrl-Z, then fg or bg). A stopped
// agent can neither write nor work, so the time between counts towards no
// rule: the hard deadline, the open calls' budgets and the answer's exit
// grace move later by it, and the silence starts again at to, as after
// output. Evidence gathered before the stop is dropped: a window that
// spans it would measure nothing.
func (w *Watchdog) Stopped(from, to time.Time) {
	d := to.Sub(from)
	if d <= 0 {
		return
	}
	w.start = w.start.Add(d)
	if w.done {
		w.doneAt = w.doneAt.Add(d)
	}
	w.calls.shift(d)
	w.win, w.workedAt, w.lookThrough, w.evidence = sample{}, time.Time{}, time.Time{}, Evidence{}
	w.Output(to)
}

// shift moves every open call's start and deadline d later. The heaps lose
// their closed entries on the way: the open ones keep their order.
func (o *openCalls) shift(d time.Duration) {
	for _, h := range []*callHeap{&o.deadlines, &o.starts} {
		kept := h.items[:0]
		for _, k := range h.items {
			if !k.closed {
				kept = append(kept, k)
			}
		}
		clear(h.items[len(kept):])
		h.items = kept
		heap.Init(h)
	}
	for _, k := range o.byID {
		k.start = k.start.Add(d)
		if !k.deadline.IsZero() {
			k.deadline = k.deadline.Add(d)
		}
	}
}
