package watchdog

import (
	"testing"
	"time"
)

// TestStoppedCountsTowardsNoRule checks that the time the agent spends
// stopped (Ctrl-Z) moves every deadline: the silence starts again, an
// open call's budget and the hard deadline count only running time.
func TestStoppedCountsTowardsNoRule(t *testing.T) {
	t.Parallel()
	s := time.Second
	th := testThresholds()
	th.IdleTimeout, th.WarnBefore, th.HardTimeout, th.ToolGrace = 10*s, 0, 100*s, 0
	w := New(th, t0)
	w.ProcessEvent(started("a", 30_000), at(5*s))
	w.ProcessEvent(started("b", 60_000), at(6*s))
	w.ProcessEvent(completed("b"), at(7*s)) // A closed call left in the heaps.
	// Stopped at 20s for an hour: no rule may count that hour.
	w.Stopped(at(20*s), at(time.Hour+20*s))
	back := time.Hour
	if v, r := w.Check(at(back + 21*s)); v != Waiting || r.Silence != s || r.OpenCalls[0].Elapsed != 16*s {
		t.Fatalf("after the stop: %v, silence %v, call a running %v; want waiting, 1s, 16s", v, r.Silence, r.OpenCalls[0].Elapsed)
	}
	// Call a's budget (30s from 5s) ends at 35s of running time; the
	// silence reaches 10s at 30s of it: the hang falls at 35s.
	if v, _ := w.Check(at(back + 35*s - 1)); v != Waiting {
		t.Errorf("before call a's budget: %v, want waiting", v)
	}
	if v, r := w.Check(at(back + 35*s)); v != Hang || r.Kind != KindTool {
		t.Errorf("at call a's budget: %v (%s), want a tool hang", v, r.Kind)
	}
	w.ProcessEvent(completed("a"), at(back+36*s))
	w.ProcessEvent(thinking, at(back+95*s))
	if v, r := w.Check(at(back + 100*s)); v != Hang || r.Kind != KindDeadline || r.Elapsed != 100*s {
		t.Errorf("at 100s of running time: %v (%s, elapsed %v), want the hard deadline", v, r.Kind, r.Elapsed)
	}
	if d := w.Decide(at(back + 99*s)); d.Verdict == Hang || !d.Next.Equal(at(back+100*s)) {
		t.Errorf("at 99s of running time: %v, next %v; want no hang and the hard deadline next", d.Verdict, d.Next)
	}
}

// TestStoppedAfterTheAnswer checks that an agent stopped after its answer
// gets its exit grace again, counted from when it was continued.
func TestStoppedAfterTheAnswer(t *testing.T) {
	t.Parallel()
	s := time.Second
	th := testThresholds()
	th.ExitGrace, th.IdleTimeout = 3*s, 10*s
	w := New(th, t0)
	w.ProcessEvent(result, at(s))
	w.Stopped(at(2*s), at(60*s))
	if v, _ := w.Check(at(62 * s)); v != OK {
		t.Errorf("2s after the continue: %v, want ok", v)
	}
	if v, r := w.Check(at(63 * s)); v != Overdue || r.Kind != KindExit {
		t.Errorf("3s after the continue: %v (%s), want overdue", v, r.Kind)
	}
}
