package watchdog

import (
	"cmp"
	"container/heap"
	"math"
	"time"
	"unicode/utf8"

	"cursor-wrap/stream"
)

// A call is an open tool call.
type call struct {
	stream.Call
	start    time.Time
	deadline time.Time // start + a declared budget; zero when undeclared
	closed   bool      // its heap entries are stale
}

// maxCommand bounds the command a call keeps for people: a call's command
// can be a whole script, and a hang record lists calls.
const maxCommand = 256

// openCalls is the set of open tool calls. Besides the calls by id it keeps
// two heaps, pruned lazily of closed calls: the declared deadlines, latest
// first, and the starts, earliest first (then by id). Opening or closing a
// call costs O(log n) however many are open, and listing the longest
// running few walks only the top of the starts heap, so an agent that
// opens a hundred thousand calls costs no more per event or status than
// one that opens ten.
type openCalls struct {
	byID      map[string]*call
	deadlines callHeap // latest deadline on top
	starts    callHeap // earliest start on top
	declared  int      // open calls with a declared budget
	tools     int      // open calls that are a tool's run, not a turn (stream.Call.Turn)
}

func newOpenCalls() openCalls {
	return openCalls{
		byID:      map[string]*call{},
		deadlines: callHeap{less: func(a, b *call) bool { return a.deadline.After(b.deadline) }},
		starts:    callHeap{less: startedBefore},
	}
}

// open adds a call started at now; false if one with its id is open.
func (o *openCalls) open(c stream.Call, now time.Time, th Thresholds) bool {
	if _, ok := o.byID[c.ID]; ok {
		return false
	}
	if len(c.Command) > maxCommand {
		cut := maxCommand
		for cut > 0 && !utf8.RuneStart(c.Command[cut]) {
			cut--
		}
		c.Command = c.Command[:cut] + "…"
	}
	k := &call{Call: c, start: now}
	o.byID[c.ID] = k
	if !c.Turn {
		o.tools++
	}
	o.budgetOne(k, th)
	heap.Push(&o.starts, k)
	return true
}

// budgetOne sets a call's deadline from the thresholds and files it.
func (o *openCalls) budgetOne(k *call, th Thresholds) {
	if b, declared := budget(k.Call, th); declared {
		k.deadline = k.start.Add(b)
		o.declared++
		heap.Push(&o.deadlines, k)
	}
}

// close removes a call; false if none with its id is open.
func (o *openCalls) close(id string) bool {
	k, ok := o.byID[id]
	if !ok {
		return false
	}
	delete(o.byID, id)
	if !k.deadline.IsZero() {
		o.declared--
	}
	if !k.Turn {
		o.tools--
	}
	k.closed = true
	o.prune()
	return true
}

// rebudget recomputes every deadline after the thresholds changed.
func (o *openCalls) rebudget(th Thresholds) {
	o.deadlines.items, o.declared = o.deadlines.items[:0], 0
	for _, k := range o.byID {
		k.deadline = time.Time{}
		o.budgetOne(k, th)
	}
}

// prune drops closed calls from the heaps' tops, and rebuilds a heap whose
// stale entries outnumber its live ones, so memory follows the open calls.
func (o *openCalls) prune() {
	for _, h := range []*callHeap{&o.deadlines, &o.starts} {
		for h.Len() > 0 && h.items[0].closed {
			heap.Pop(h)
		}
		if live := len(o.byID); h.Len() > 64 && h.Len() > 2*live {
			kept := h.items[:0]
			for _, k := range h.items {
				if !k.closed {
					kept = append(kept, k)
				}
			}
			h.items = kept
			heap.Init(h)
		}
	}
}

// latestDeadline is the last declared deadline of the open calls.
func (o *openCalls) latestDeadline() (time.Time, bool) {
	if o.declared == 0 {
		return time.Time{}, false
	}
	return o.deadlines.items[0].deadline, true
}

// oldestStart is when the longest-running open call started.
func (o *openCalls) oldestStart() (time.Time, bool) {
	if len(o.byID) == 0 {
		return time.Time{}, false
	}
	return o.starts.items[0].start, true
}

// oldestCall is the id of the longest-running open call.
func (o *openCalls) oldestCall() (string, bool) {
	if len(o.byID) == 0 {
		return "", false
	}
	return o.starts.items[0].ID, true
}

// byStart orders calls by start, then id, so that a list of the longest
// running is the same whatever the map's order.
func byStart(a, b *call) int {
	return cmp.Or(a.start.Compare(b.start), cmp.Compare(a.ID, b.ID))
}

// startedBefore reports whether a comes before b in that order.
func startedBefore(a, b *call) bool { return byStart(a, b) < 0 }

// oldest lists the k longest-running open calls, the longest first. It
// walks the starts heap best first from its root: a node comes out only
// after its parent, so it visits the k calls listed, the closed calls
// that started before the last of them, and their children, not the
// whole set.
func (o *openCalls) oldest(k int) []*call {
	h := o.starts.items
	top := make([]*call, 0, min(k, len(o.byID)))
	if len(h) == 0 {
		return top
	}
	next := &nodes{calls: h, idx: []int{0}}
	for next.Len() > 0 && len(top) < k {
		i := heap.Pop(next).(int)
		if !h[i].closed {
			top = append(top, h[i])
		}
		for _, child := range [2]int{2*i + 1, 2*i + 2} {
			if child < len(h) {
				heap.Push(next, child)
			}
		}
	}
	return top
}

// nodes is a heap of positions in the starts heap, by their calls' order.
type nodes struct {
	calls []*call
	idx   []int
}

func (n nodes) Len() int           { return len(n.idx) }
func (n nodes) Less(i, j int) bool { return startedBefore(n.calls[n.idx[i]], n.calls[n.idx[j]]) }
func (n nodes) Swap(i, j int)      { n.idx[i], n.idx[j] = n.idx[j], n.idx[i] }
func (n *nodes) Push(x any)        { n.idx = append(n.idx, x.(int)) }
func (n *nodes) Pop() any {
	last := n.idx[len(n.idx)-1]
	n.idx = n.idx[:len(n.idx)-1]
	return last
}

// budget is how long a call may run before it counts as overdue, and
// whether that budget was declared (by the agent or [tool_timeouts]). An
// undeclared budget is the idle timeout, judged like silence: activity
// can excuse it.
func budget(c stream.Call, th Thresholds) (time.Duration, bool) {
	if c.Timeout > 0 {
		return saturatingAdd(c.Timeout, th.ToolGrace), true
	}
	if d, ok := th.ToolTimeouts[c.Kind]; ok && d > 0 {
		return d, true
	}
	return th.IdleTimeout, false
}

// saturatingAdd adds two non-negative durations, capped at the largest
// one: an agent may declare a budget of centuries, never a negative one.
func saturatingAdd(a, b time.Duration) time.Duration {
	return a + min(b, math.MaxInt64-a)
}

// callHeap is a heap of calls ordered by less.
type callHeap struct {
	items []*call
	less  func(a, b *call) bool
}

func (h callHeap) Len() int           { return len(h.items) }
func (h callHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h callHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *callHeap) Push(x any)        { h.items = append(h.items, x.(*call)) }
func (h *callHeap) Pop() any {
	n := len(h.items) - 1
	k := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	return k
}
