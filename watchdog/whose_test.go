package watchdog

import (
	"testing"
	"time"

	"cursor-wrap/stream"
)

// drive runs a watchdog from t0 (first fed first at t0) with samples of
// tree at every instant it wants one, until a hang or until, and returns
// the hang's time (-1 for none) and its reason.
func drive(t *testing.T, th Thresholds, first stream.Event, tree func(time.Duration) Activity, until time.Duration) (time.Duration, Reason) {
	t.Helper()
	w := New(th, t0)
	w.ProcessEvent(first, t0)
	now := t0
	for now.Before(at(until)) {
		next := w.Decide(now).Next
		if next.IsZero() {
			t.Fatal("no next deadline")
		}
		now = next
		if w.WantsActivity(now) {
			w.ObserveActivity(tree(now.Sub(t0)), now)
		}
		if v, r := w.Check(now); v == Hang {
			return now.Sub(t0), r
		}
	}
	return -1, Reason{}
}

// TestWhose checks whose work counts (Activity's "Whose"): the agent's
// own CPU always (what it reads is not reported: not work); another
// process's CPU and reads only while under the agent, and in
// stream-json mode only when it started after the open call did; an
// orphan, a helper started before the call, or anything with no call
// open, never.
func TestWhose(t *testing.T) {
	t.Parallel()
	s := time.Second
	const never = -1
	// proc is a process started at start, using cpu per second from then.
	proc := func(pid int, start time.Duration, cpu float64, under, own bool) func(time.Duration) Proc {
		return func(d time.Duration) Proc {
			used := time.Duration(max(0, cpu*float64(d-start)))
			return Proc{Pid: pid, Started: at(start), CPU: used, Under: under, OwnSession: own}
		}
	}
	// reader is a process started at start, reading perSec bytes a second
	// from then, with no CPU to speak of (a tool piping a file, a watcher).
	reader := func(pid int, start time.Duration, perSec float64, under bool) func(time.Duration) Proc {
		return func(d time.Duration) Proc {
			read := int64(max(0, perSec*(d-start).Seconds()))
			return Proc{Pid: pid, Started: at(start), ReadBytes: read, Under: under}
		}
	}
	tree := func(agentCPU float64, procs ...func(time.Duration) Proc) func(time.Duration) Activity {
		return func(d time.Duration) Activity {
			a := Activity{CPU: time.Duration(agentCPU * float64(d))}
			for _, p := range procs {
				if pr := p(d); !pr.Started.After(at(d)) {
					a.Procs = append(a.Procs, pr)
				}
			}
			return a
		}
	}
	for _, tc := range []struct {
		name     string
		text     bool
		first    stream.Event
		tree     func(time.Duration) Activity
		wantHang time.Duration
		wantPid  int // the process the evidence names, when excused
	}{
		{"the agent itself busy", false, thinking, tree(0.5), 300 * s, 0},
		{"an orphan burning CPU", false, thinking, tree(0, proc(7, -5*s, 1, false, true)), 60 * s, 0},
		{"an orphan burning CPU during a call", false, started("c", 0), tree(0, proc(7, 2*s, 1, false, true)), 60 * s, 0},
		{"a child burning CPU, no call open", false, thinking, tree(0, proc(7, 2*s, 1, true, false)), 60 * s, 0},
		{"a helper started before the call, busy", false, started("c", 0), tree(0, proc(7, -30*s, 1, true, false)), 60 * s, 0},
		{"a dev server from an earlier call, asleep", false, started("c", 0), tree(0, proc(7, -30*s, 0, true, true)), 60 * s, 0},
		{"the call's tool, busy", false, started("c", 0), tree(0, proc(7, 200*time.Millisecond, 1, true, false)), 300 * s, 7},
		{"the call's tool asleep in its own session", false, started("c", 0), tree(0, proc(7, 200*time.Millisecond, 0, true, true)), 300 * s, 7},
		{"the call's tool spawned a moment before its event", false, started("c", 0), tree(0, proc(7, -500*time.Millisecond, 1, true, false)), 300 * s, 7},
		{"a command run in a shell kept from before the call", false, started("c", 0),
			tree(0, proc(6, -30*s, 0, true, true), proc(7, 10*s, 1, true, false)), 300 * s, 7},
		{"the call's tool reading", false, started("c", 0), tree(0, reader(7, 200*time.Millisecond, 50000, true)), 300 * s, 7},
		{"the call's tool reading under the floor", false, started("c", 0), tree(0, reader(7, 200*time.Millisecond, 500, true)), 60 * s, 0},
		{"a helper started before the call, reading", false, started("c", 0), tree(0, reader(7, -30*s, 50000, true)), 60 * s, 0},
		{"an orphan reading during a call", false, started("c", 0), tree(0, reader(7, 2*s, 50000, false)), 60 * s, 0},
		{"text mode: a child under the agent at work", true, thinking, tree(0, proc(7, 2*s, 1, true, false)), never, 7},
		{"text mode: an orphan burning CPU", true, thinking, tree(0, proc(7, 2*s, 1, false, true)), 60 * s, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			th.ActivityProbe, th.MaxSilence, th.TextMode = true, 300*s, tc.text
			got, r := drive(t, th, tc.first, tc.tree, 1000*s)
			if got != tc.wantHang {
				t.Fatalf("hang at %v, want %v; %+v", got, tc.wantHang, r.Evidence)
			}
			if tc.wantHang > 60*s && (r.Evidence.ActiveWindows == 0 || r.Evidence.Pid != tc.wantPid) {
				t.Errorf("evidence %+v, want it earned by pid %d", r.Evidence, tc.wantPid)
			}
			if tc.wantHang > 60*s && tc.wantPid != 0 && r.Evidence.CallID != "c" {
				t.Errorf("evidence %+v does not name the call", r.Evidence)
			}
		})
	}
}

// TestWhoseDeltas: usage is taken per process identity between the two
// samples of a window. A pid reused by a new process starts from nothing
// (no negative or borrowed usage), a process absent from the window's
// start started in it, and a process that left the agent's ancestry
// stops counting at once.
func TestWhoseDeltas(t *testing.T) {
	t.Parallel()
	th := testThresholds()
	th.ActivityProbe, th.TextMode = true, true
	w := New(th, t0)
	s := time.Second
	from := Activity{Procs: []Proc{
		{Pid: 7, Started: at(0), CPU: 50 * s, Under: true},
		{Pid: 8, Started: at(0), CPU: 10 * s, Under: true},
	}}
	for _, tc := range []struct {
		name string
		to   []Proc
		cpu  time.Duration
	}{
		{"the same processes", []Proc{{Pid: 7, Started: at(0), CPU: 51 * s, Under: true}, {Pid: 8, Started: at(0), CPU: 10 * s, Under: true}}, s},
		{"pid 7 reused by a new process", []Proc{{Pid: 7, Started: at(s), CPU: 2 * s, Under: true}}, 2 * s},
		{"a new process", []Proc{{Pid: 9, Started: at(s), CPU: 3 * s, Under: true}}, 3 * s},
		{"pid 7 left the agent's ancestry", []Proc{{Pid: 7, Started: at(0), CPU: 60 * s, Under: false}}, 0},
		{"a process gone, its parent's usage grew by it", []Proc{{Pid: 8, Started: at(0), CPU: 11 * s, Under: true}}, s},
	} {
		if got := w.workBetween(from, Activity{Procs: tc.to}).cpu; got != tc.cpu {
			t.Errorf("%s: counted %v of CPU, want %v", tc.name, got, tc.cpu)
		}
	}
}
