package watchdog

import (
	"math"
	"strings"

	"cursor-wrap/stream"
	"fmt"
	"testing"
	"time"
)

// TestEvidenceFigures: the hang record's activity figures are those of
// the windows the probe judged: how many, how many above a floor, the CPU
// and read rates of the last one, what earned it and who, and how far
// past the idle timeout the silence was excused. A floor is met at
// exactly its value.
func TestEvidenceFigures(t *testing.T) {
	t.Parallel()
	s := time.Second
	// cpu is the agent's own CPU, frac of a core; a tool (pid 7) of the
	// open call, started at 200 ms, reads rate bytes a second.
	// until 100 s in text mode, where the agent's work is never capped.
	tree := func(frac float64, tool *Proc, rate int64) func(time.Duration) Activity {
		return func(d time.Duration) Activity {
			a := Activity{CPU: time.Duration(frac * float64(d))}
			if tool != nil {
				p := *tool
				p.ReadBytes = rate * int64(d/time.Second)
				if tool.Name == "cc" {
					p.ReadBytes = rate * int64(min(d, 100*s)/time.Second)
				}
				a.Procs = []Proc{p}
			}
			return a
		}
	}
	makeProc := &Proc{Pid: 7, Name: "make", Started: at(200 * time.Millisecond), Under: true}
	cc := &Proc{Pid: 9, Name: "cc", Started: at(200 * time.Millisecond), Under: true}
	sleeper := &Proc{Pid: 8, Name: "sleep", Started: at(200 * time.Millisecond), Under: true, OwnSession: true}
	for _, tc := range []struct {
		name     string
		text     bool
		tree     func(time.Duration) Activity
		wantHang time.Duration
		want     string
	}{
		{"CPU at the floor", false, tree(0.25, nil, 0), 70 * s,
			"windows 6 active 6 cpu 25.0 read 0.0 tool false worked work pid 0  call  extended 10s"},
		{"CPU under the floor", false, tree(0.24, nil, 0), 60 * s,
			"windows 1 active 0 cpu 24.0 read 0.0 tool false worked  pid 0  call  extended 0s"},
		{"a tool's reads at the floor", false, tree(0, makeProc, 1024), 70 * s,
			"windows 6 active 6 cpu 0.0 read 1024.0 tool false worked work pid 7 make call c extended 10s"},
		{"a tool's reads under the floor", false, tree(0, makeProc, 1000), 60 * s,
			"windows 1 active 0 cpu 0.0 read 1000.0 tool false worked  pid 0  call  extended 0s"},
		{"a tool asleep", false, tree(0, sleeper, 0), 70 * s,
			"windows 6 active 6 cpu 0.0 read 0.0 tool true worked tool pid 8 sleep call c extended 10s"},
		// Uncapped: the idle timeout runs from the last active window (98–100 s);
		// the two windows before that deadline saw nothing, and say so.
		{"text mode: no call to name", true, tree(0, cc, 2048), 160 * s,
			"windows 23 active 21 cpu 0.0 read 0.0 tool false worked work pid 9 cc call  extended 1m40s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			th.ActivityProbe, th.MaxSilence, th.ActivityCPUFloor, th.TextMode = true, 70*s, 0.25, tc.text
			got, r := drive(t, th, started("c", 0), tc.tree, 1000*s)
			e := r.Evidence
			figures := fmt.Sprintf("windows %d active %d cpu %.1f read %.1f tool %v worked %s pid %d %s call %s extended %v",
				e.Windows, e.ActiveWindows, e.CPUPercent, e.ReadPerSec, e.Tool, e.Worked, e.Pid, e.Process, e.CallID, e.Extended)
			if got != tc.wantHang || figures != tc.want {
				t.Errorf("hang at %v with\n %s\nwant %v with\n %s", got, figures, tc.wantHang, tc.want)
			}
		})
	}
}

// TestShortIdleTimeoutWindows: a window is never more than half the idle
// timeout, so that the one before the deadline starts after the last
// output: with a 3 s idle timeout, 1.5 s windows.
func TestShortIdleTimeoutWindows(t *testing.T) {
	t.Parallel()
	s := time.Second
	th := testThresholds()
	th.ActivityProbe, th.IdleTimeout, th.MaxSilence = true, 3*s, 9*s
	var samples []time.Duration
	busy := func(d time.Duration) Activity {
		samples = append(samples, d)
		return Activity{CPU: d / 2}
	}
	got, r := drive(t, th, thinking, busy, 100*s)
	if got != 9*s || r.Evidence.ActiveWindows != r.Evidence.Windows || r.Evidence.Windows != 5 {
		t.Errorf("hang at %v with %d windows, %d active; want 9s, 5 active windows of 1.5 s (samples at %v)", got, r.Evidence.Windows, r.Evidence.ActiveWindows, samples)
	}
	for i := 1; i < len(samples); i++ {
		if gap := samples[i] - samples[i-1]; gap > 1500*time.Millisecond {
			t.Errorf("samples %v and %v are %v apart, more than half the idle timeout", samples[i-1], samples[i], gap)
		}
	}
}

// TestTokenBudgetAtTheLargestCount: earlier attempts' tokens and this
// one's that sum to exactly the largest count are over a budget of one
// less; one more saturates there rather than wrapping under it.
func TestTokenBudgetAtTheLargestCount(t *testing.T) {
	t.Parallel()
	for _, before := range []int64{math.MaxInt64 - 100, math.MaxInt64 - 99} {
		th := testThresholds()
		th.MaxTokens = math.MaxInt64 - 1
		w := New(th, t0)
		w.SpentBefore(stream.Usage{Input: before})
		w.ProcessEvent(message("m1", 60, 40), at(time.Second))
		if budget, limit, total := w.OverBudget(); budget != BudgetTokens || limit != float64(th.MaxTokens) || total != math.MaxInt64 {
			t.Errorf("before %d and 100 now: %q %v %v, want over the tokens budget at the largest count", before, budget, limit, total)
		}
	}
}

// TestBudgetEdges: a total exactly at a budget is not past it; a run with
// no budget set is never over one, whatever it spends.
func TestBudgetEdges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		maxTokens int
		maxCost   float64
		want      string
	}{
		{"tokens at the budget", 100, 0, ""},
		{"tokens one past it", 99, 0, BudgetTokens},
		{"cost at the budget", 0, 0.5, ""},
		{"cost past it", 0, 0.49, BudgetCost},
		{"no budget", 0, 0, ""},
	} {
		th := testThresholds()
		th.MaxTokens, th.MaxCostUSD = tc.maxTokens, tc.maxCost
		w := New(th, t0)
		ev := message("m1", 60, 40)
		ev.Usage.CostUSD, ev.Usage.HasCost = 0.5, true
		w.ProcessEvent(ev, at(time.Second))
		if budget, _, _ := w.OverBudget(); budget != tc.want {
			t.Errorf("%s: over %q, want %q", tc.name, budget, tc.want)
		}
		if v, r := w.Check(at(time.Second)); (v == Hang) != (tc.want != "") {
			t.Errorf("%s: verdict %v, %+v", tc.name, v, r)
		}
	}
}

// TestConnNothingReceived: a connection that has received nothing earns
// nothing, however recently the kernel says it was set up (its last
// receive time counts from there).
func TestConnNothingReceived(t *testing.T) {
	t.Parallel()
	s := time.Second
	th := testThresholds()
	th.ActivityProbe, th.ConnProbe, th.MaxKeepAliveWait = true, true, 300*s
	w := New(th, t0)
	w.ProcessEvent(initEv, t0)
	for now := t0; now.Before(at(1000 * s)); {
		now = w.Decide(now).Next
		if w.WantsActivity(now) {
			d := now.Sub(t0)
			w.ObserveActivity(Activity{Conns: []Conn{{ID: 1, Remote: "10.0.0.1:443", Open: true,
				Sent: 22 << 10, SegsOut: 1, SendAgo: d, RecvAgo: time.Second}}}, now)
		}
		if v, r := w.Check(now); v == Hang {
			if got := now.Sub(t0); got != 60*s || r.Evidence.Conn != "" {
				t.Errorf("hang at %v, evidence %+v; want 60s, no connection named", got, r.Evidence)
			}
			return
		}
	}
	t.Fatal("never hung")
}

// TestLongCommandCut: a call's command is kept to 256 bytes in the hang
// record, cut before a character rather than inside one, with an
// ellipsis; one of exactly 256 bytes is kept whole.
func TestLongCommandCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 255) + "é" + strings.Repeat("b", 10) // é's two bytes straddle 256
	exact := strings.Repeat("c", 256)
	for _, tc := range []struct{ command, want string }{
		{long, strings.Repeat("a", 255) + "…"},
		{exact, exact},
		{strings.Repeat("d", 300), strings.Repeat("d", 256) + "…"},
		// Not UTF-8 at all: no rune starts before the cut.
		{strings.Repeat("\x80", 300), "…"},
	} {
		w := New(testThresholds(), t0)
		w.ProcessEvent(stream.Event{Type: "tool_call", Started: []stream.Call{{ID: "c", Kind: "shell", Command: tc.command}}}, t0)
		_, r := w.Check(at(time.Second))
		if len(r.OpenCalls) != 1 || r.OpenCalls[0].Command != tc.want {
			t.Errorf("command of %d bytes shown as %+v, want %q", len(tc.command), r.OpenCalls, tc.want)
		}
	}
}

// TestZeroFloorsAndBudgetsValid: a floor or a budget of 0 is valid (no
// floor, no budget); below 0 is not.
func TestZeroFloorsAndBudgetsValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(*Thresholds)
		ok   bool
	}{
		{"cpu floor 0", func(th *Thresholds) { th.ActivityCPUFloor = 0 }, true},
		{"read floor 0", func(th *Thresholds) { th.ActivityReadFloor = 0 }, true},
		{"max_tokens 0", func(th *Thresholds) { th.MaxTokens = 0 }, true},
		{"max_cost_usd 0", func(th *Thresholds) { th.MaxCostUSD = 0 }, true},
		{"cpu floor -0.1", func(th *Thresholds) { th.ActivityCPUFloor = -0.1 }, false},
		{"max_tokens -1", func(th *Thresholds) { th.MaxTokens = -1 }, false},
	} {
		th := DefaultThresholds()
		tc.set(&th)
		if err := th.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v", tc.name, err)
		}
	}
}

// TestWhoEarnedTheWindow: the process named in the record is the one
// that did most; on a tie, the agent itself before any other, and the
// first listed before a later one; asleep in its own session, the tool
// that did most of the tools.
func TestWhoEarnedTheWindow(t *testing.T) {
	t.Parallel()
	s := time.Second
	proc := func(pid int, cpuPerSec time.Duration, readPerSec int64, own bool) func(time.Duration) Proc {
		return func(d time.Duration) Proc {
			return Proc{Pid: pid, Started: at(200 * time.Millisecond), Under: true, OwnSession: own,
				CPU: cpuPerSec * time.Duration(d/time.Second), ReadBytes: readPerSec * int64(d/time.Second)}
		}
	}
	for _, tc := range []struct {
		name     string
		ownCPU   time.Duration // the agent's, a second
		procs    []func(time.Duration) Proc
		wantPid  int
		wantKind string
	}{
		{"the agent ties with a tool", 100 * time.Millisecond, []func(time.Duration) Proc{proc(7, 100*time.Millisecond, 0, false)}, 0, WorkedBusy},
		{"two tools tie", 0, []func(time.Duration) Proc{proc(7, 0, 4096, false), proc(8, 0, 4096, false)}, 7, WorkedBusy},
		{"asleep: the tool that did most", 0, []func(time.Duration) Proc{proc(7, time.Millisecond, 0, true), proc(8, 0, 0, true)}, 7, WorkedTool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			th.ActivityProbe, th.MaxSilence = true, 70*s
			tree := func(d time.Duration) Activity {
				a := Activity{CPU: tc.ownCPU * time.Duration(d/time.Second)}
				for _, p := range tc.procs {
					a.Procs = append(a.Procs, p(d))
				}
				return a
			}
			got, r := drive(t, th, started("c", 0), tree, 1000*s)
			if got != 70*s || r.Evidence.Pid != tc.wantPid || r.Evidence.Worked != tc.wantKind {
				t.Errorf("hang at %v, earned by pid %d (%s); want 70s, pid %d (%s)", got, r.Evidence.Pid, r.Evidence.Worked, tc.wantPid, tc.wantKind)
			}
		})
	}
}
