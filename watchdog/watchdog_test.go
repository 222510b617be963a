package watchdog

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"cursor-wrap/stream"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ev(line string) stream.Event {
	return stream.Parse(stream.Line{Text: []byte(line), Len: int64(len(line)), Newline: true})
}

func started(id string, timeoutMS int) stream.Event {
	return ev(fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":%q,"tool_call":{"shellToolCall":{"args":{"command":"sleep","timeout":%d}}}}`, id, timeoutMS))
}

func startedKind(id, kind string) stream.Event {
	return ev(fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":%q,"tool_call":{%q:{"args":{"path":"x"}}}}`, id, kind))
}

func completed(id string) stream.Event {
	return ev(fmt.Sprintf(`{"type":"tool_call","subtype":"completed","call_id":%q,"tool_call":{}}`, id))
}

var (
	thinking = ev(`{"type":"thinking","subtype":"delta","text":"x"}`)
	result   = ev(`{"type":"result","subtype":"success","session_id":"s"}`)
	initEv   = ev(`{"type":"system","subtype":"init","session_id":"sess-1"}`)
)

func testThresholds() Thresholds {
	th := DefaultThresholds()
	th.ActivityProbe = false
	return th
}

// step is one moment of a timeline: feed an event (if any) at a time, then
// check the verdict.
type step struct {
	at   time.Duration
	ev   *stream.Event
	want Verdict
}

func e(x stream.Event) *stream.Event { return &x }

func runSteps(t *testing.T, th Thresholds, steps []step) *Watchdog {
	t.Helper()
	w := New(th, t0)
	for i, s := range steps {
		if s.ev != nil {
			w.ProcessEvent(*s.ev, at(s.at))
		}
		if got, r := w.Check(at(s.at)); got != s.want {
			t.Fatalf("step %d (t=%v): verdict %v, want %v; reason %+v", i, s.at, got, s.want, r)
		}
	}
	return w
}

func TestRules(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	s := time.Second
	for _, tc := range []struct {
		name  string
		th    func(*Thresholds)
		steps []step
	}{
		{"idle hang exactly at threshold", nil, []step{
			{0, e(thinking), OK},
			{60*s - ms, nil, OK},
			{60 * s, nil, Hang},
		}},
		{"any line resets silence", nil, []step{
			{0, e(thinking), OK},
			{50 * s, e(ev("T: plain text")), OK},
			{110*s - ms, nil, OK},
			{110 * s, nil, Hang},
		}},
		{"sequential call within its timeout", nil, []step{
			{0, e(started("a", 120000)), Waiting},
			{90 * s, nil, Waiting},
			{100 * s, e(completed("a")), OK},
			{160*s - ms, nil, OK},
			{160 * s, nil, Hang},
		}},
		{"tool timeout hang at declared+grace", nil, []step{
			{0, e(started("a", 120000)), Waiting},
			{150*s - ms, nil, Waiting},
			{150 * s, nil, Hang},
		}},
		{"short declared timeout never beats idle", nil, []step{
			{0, e(started("a", 1000)), Waiting},
			{31 * s, nil, Waiting},
			{60*s - ms, nil, Waiting},
			{60 * s, nil, Hang},
		}},
		{"parallel calls, one finishes first", nil, []step{
			{0, e(started("a", 300000)), Waiting},
			{0, e(started("b", 10000)), Waiting},
			{5 * s, e(completed("b")), Waiting},
			{300 * s, nil, Waiting},
			{330*s - ms, nil, Waiting},
			{330 * s, nil, Hang},
		}},
		{"calls keep their own starts", nil, []step{
			{0, e(started("a", 100000)), Waiting},     // deadline 130s
			{8 * s, e(started("b", 100000)), Waiting}, // deadline 138s
			{130 * s, nil, Waiting},                   // a is overdue, b is not
			{138*s - ms, nil, Waiting},
			{138 * s, nil, Hang},
		}},
		{"events after overdue calls prove life", nil, []step{
			{0, e(started("lost", 10000)), Waiting},
			{100 * s, e(thinking), Waiting},
			{160*s - ms, nil, Waiting},
			{160 * s, nil, Hang},
		}},
		{"newline call ids pair", nil, []step{
			{0, e(started("call_1\nfc_1", 600000)), Waiting},
			{1 * s, e(completed("call_1\nfc_1")), OK},
			{61 * s, nil, Hang},
		}},
		{"tool kind budget", func(th *Thresholds) { th.ToolTimeouts = map[string]time.Duration{"mcpToolCall": 10 * time.Minute} }, []step{
			{0, e(startedKind("m", "mcpToolCall")), Waiting},
			{10*time.Minute - ms, nil, Waiting},
			{10 * time.Minute, nil, Hang},
		}},
		{"no declared timeout falls back to idle", nil, []step{
			{0, e(startedKind("r", "readToolCall")), Waiting},
			{60*s - ms, nil, Waiting},
			{60 * s, nil, Hang},
		}},
		{"post-result silence is never a hang", func(th *Thresholds) { th.ExitGrace = time.Hour }, []step{
			{0, e(started("a", 1000)), Waiting},
			{1 * s, e(result), OK},
			{59 * time.Minute, nil, OK},
		}},
		{"overdue after exit grace", nil, []step{
			{0, e(result), OK},
			{5*s - ms, nil, OK},
			{5 * s, nil, Overdue},
		}},
		{"output after the result postpones overdue", nil, []step{
			{0, e(result), OK},
			{4 * s, e(ev("\x1b[?25h")), OK},
			{9*s - ms, nil, OK},
			{9 * s, nil, Overdue},
		}},
		{"output after the result stops postponing", func(th *Thresholds) { th.IdleTimeout = 20 * s }, []step{
			{0, e(result), OK},
			{4 * s, e(thinking), OK},
			{8 * s, e(thinking), OK},
			{12 * s, e(thinking), OK},
			{16 * s, e(thinking), OK},
			{20*s - ms, e(thinking), OK},
			{20 * s, nil, Overdue},
		}},
		{"hard deadline after the result", func(th *Thresholds) { th.HardTimeout = 3 * s; th.ExitGrace = time.Minute }, []step{
			{0, e(result), OK},
			{1 * s, e(thinking), OK},
			{3*s - ms, e(thinking), OK},
			{3 * s, nil, Overdue},
		}},
		{"a declared budget of centuries never wraps", nil, []step{
			{0, e(started("a", 1e16)), Waiting},
			{365 * 24 * time.Hour, nil, Waiting},
		}},
		{"hard deadline fires while events flow", func(th *Thresholds) { th.HardTimeout = 30 * s }, []step{
			{10 * s, e(thinking), OK},
			{20 * s, e(thinking), OK},
			{30*s - ms, e(thinking), OK},
			{30 * s, nil, Hang},
		}},
		{"warning exactly warn_before early", func(th *Thresholds) { th.WarnBefore = 10 * s }, []step{
			{0, e(thinking), OK},
			{50*s - ms, nil, OK},
			{50 * s, nil, Warn},
			{55 * s, nil, Warn},
			{60 * s, nil, Hang},
		}},
		{"warning while tools run", func(th *Thresholds) { th.WarnBefore = 10 * s }, []step{
			{0, e(started("a", 100000)), Waiting},
			{120*s - ms, nil, Waiting},
			{120 * s, nil, Warn},
			{125 * s, e(completed("a")), OK},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			if tc.th != nil {
				tc.th(&th)
			}
			runSteps(t, th, tc.steps)
		})
	}
}

func TestNotices(t *testing.T) {
	t.Parallel()
	w := New(testThresholds(), t0)
	if n := w.ProcessEvent(completed("ghost"), at(0)); n != UnknownCall {
		t.Errorf("unknown completion: notice %v", n)
	}
	w.ProcessEvent(started("a", 100000), at(0))
	if n := w.ProcessEvent(started("a", 100000), at(50*time.Second)); n != DuplicateCall {
		t.Errorf("repeated start: notice %v", n)
	}
	// The first start is kept: the deadline is 130 s from t0, not from 50 s.
	if v, _ := w.Check(at(130 * time.Second)); v != Hang {
		t.Errorf("repeated start moved the deadline: %v", v)
	}
}

func TestSessionAndReason(t *testing.T) {
	t.Parallel()
	w := New(testThresholds(), t0)
	w.ProcessEvent(initEv, at(0))
	w.ProcessEvent(started("long", 600000), at(1*time.Second))
	w.ProcessEvent(startedKind("r", "readToolCall"), at(2*time.Second))
	if w.SessionID() != "sess-1" {
		t.Errorf("session %q", w.SessionID())
	}
	v, r := w.Check(at(62 * time.Second))
	if v != Waiting || r.Kind != KindTool || len(r.OpenCalls) != 2 || r.LastEventType != "tool_call/started" {
		t.Fatalf("verdict %v reason %+v", v, r)
	}
	first := r.OpenCalls[0]
	if first.ID != "long" || first.Elapsed != 61*time.Second || first.Timeout != 10*time.Minute || first.Budget != 10*time.Minute+30*time.Second {
		t.Errorf("open call %+v", first)
	}
	if r.Silence != 60*time.Second {
		t.Errorf("silence %v", r.Silence)
	}
}

// TestNextDeadline checks that the watchdog names the exact instant its
// answer changes, so the orchestrator's one timer fires on time.
func TestNextDeadline(t *testing.T) {
	t.Parallel()
	th := testThresholds()
	th.WarnBefore = 10 * time.Second
	th.HardTimeout = time.Hour
	w := New(th, t0)
	w.ProcessEvent(thinking, at(0))
	if got := w.Decide(at(0)).Next; !got.Equal(at(50 * time.Second)) {
		t.Errorf("next = %v, want the warning at 50s", got.Sub(t0))
	}
	if got := w.Decide(at(50 * time.Second)).Next; !got.Equal(at(60 * time.Second)) {
		t.Errorf("next = %v, want the hang at 60s", got.Sub(t0))
	}
	w.ProcessEvent(started("a", 600000), at(30*time.Second))
	if got := w.Decide(at(30 * time.Second)).Next; !got.Equal(at(30*time.Second + 630*time.Second - 10*time.Second)) {
		t.Errorf("next = %v, want the warning before the tool deadline", got.Sub(t0))
	}
	w.ProcessEvent(result, at(40*time.Second))
	if got := w.Decide(at(40 * time.Second)).Next; !got.Equal(at(45 * time.Second)) {
		t.Errorf("next = %v, want the exit grace at 45s", got.Sub(t0))
	}
	if got := w.Decide(at(45 * time.Second)).Next; !got.IsZero() {
		t.Errorf("next after everything = %v, want zero", got.Sub(t0))
	}
}

// TestSetThresholds checks that new thresholds apply to the running state:
// open calls' deadlines are recomputed and a hang they make due is
// declared at once.
func TestSetThresholds(t *testing.T) {
	t.Parallel()
	th0 := testThresholds()
	th0.ActivityProbe = true
	w := New(th0, t0)
	w.ProcessEvent(thinking, at(0))
	if v, _ := w.Check(at(5 * time.Second)); v != OK {
		t.Fatalf("verdict %v", v)
	}
	th := w.Thresholds()
	th.IdleTimeout = time.Second
	w.SetThresholds(th)
	// Even with the activity probe on, no window of evidence is waited for.
	w.ObserveActivity(Activity{}, at(5*time.Second))
	if v, _ := w.Check(at(5 * time.Second)); v != Hang {
		t.Errorf("after cutting idle to 1s: %v, want hang", v)
	}
	w2 := New(testThresholds(), t0)
	w2.ProcessEvent(started("a", 100000), at(0))
	th = w2.Thresholds()
	th.ToolGrace, th.IdleTimeout = 0, time.Second
	w2.SetThresholds(th)
	if got := w2.Decide(at(0)).Next; !got.Equal(at(100 * time.Second)) {
		t.Errorf("tool deadline after reload = %v, want 100s", got.Sub(t0))
	}
}

// TestActivity drives the activity rule: silence with a busy tree is
// tolerated window by window up to MaxSilence; keep-alive traffic is not
// activity; an idle tree hangs at the idle timeout.
func TestActivity(t *testing.T) {
	t.Parallel()
	th := testThresholds()
	th.ActivityProbe = true
	th.MaxSilence = 70 * time.Second
	s := time.Second

	busy := func(cpu time.Duration) func(time.Duration) Activity {
		return func(d time.Duration) Activity {
			return Activity{CPU: time.Duration(float64(cpu) * d.Seconds())}
		}
	}
	for _, tc := range []struct {
		name     string
		tree     func(time.Duration) Activity // cumulative activity at t
		wantHang time.Duration
	}{
		{"idle tree", busy(0), 60 * s},
		{"keep-alives under the floors", busy(10 * time.Millisecond), 60 * s},
		{"cpu-bound model reply", busy(300 * time.Millisecond), 70 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := New(th, t0)
			w.ProcessEvent(thinking, at(0))
			now := at(0)
			for i := 0; i < 100; i++ {
				next := w.Decide(now).Next
				if next.IsZero() {
					t.Fatal("no next deadline")
				}
				now = next
				if w.WantsActivity(now) {
					w.ObserveActivity(tc.tree(now.Sub(t0)), now)
				}
				if v, r := w.Check(now); v == Hang {
					if got := now.Sub(t0); got != tc.wantHang {
						t.Fatalf("hang at %v, want %v; reason %+v", got, tc.wantHang, r)
					}
					if tc.wantHang > 60*s && (r.Evidence.ActiveWindows == 0 || r.Evidence.Extended == 0) {
						t.Errorf("evidence not reported: %+v", r.Evidence)
					}
					return
				}
			}
			t.Fatal("never hung")
		})
	}
}

// TestProperty drives random event sequences with random clocks and checks
// the rules' two promises at every step: never a hang while an open call is
// within its deadline or the silence is under the idle timeout; always a
// hang once every threshold has passed.
func TestProperty(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for run := 0; run < 2000; run++ {
		th := testThresholds()
		th.IdleTimeout = time.Duration(1+r.IntN(120)) * time.Second
		th.ToolGrace = time.Duration(r.IntN(60)) * time.Second
		w := New(th, t0)
		now := t0
		last := t0
		open := map[string]time.Time{}
		budget := map[string]time.Duration{}
		for i := 0; i < 40; i++ {
			now = now.Add(time.Duration(r.IntN(200_000)) * time.Millisecond)
			switch r.IntN(5) {
			case 0:
				id := fmt.Sprintf("c%d\n%d", run, r.IntN(6))
				ms := r.IntN(4) * 50000
				w.ProcessEvent(started(id, ms), now)
				if _, ok := open[id]; !ok {
					open[id] = now
					budget[id] = th.IdleTimeout
					if ms > 0 {
						budget[id] = time.Duration(ms)*time.Millisecond + th.ToolGrace
					}
				}
				last = now
			case 1:
				id := "ghost" // an unknown completion is still a line
				for id = range open {
					break
				}
				w.ProcessEvent(completed(id), now)
				delete(open, id)
				last = now
			case 2:
				w.ProcessEvent(thinking, now)
				last = now
			}
			v, reason := w.Check(now)
			within := now.Sub(last) < th.IdleTimeout
			allPast := true
			for id, st := range open {
				if now.Sub(st) < budget[id] {
					within, allPast = true, false
				}
			}
			if v == Hang && within {
				t.Fatalf("run %d step %d: hang while within a threshold: %+v", run, i, reason)
			}
			if v != Hang && allPast && now.Sub(last) >= th.IdleTimeout {
				t.Fatalf("run %d step %d: no hang after every threshold passed: %v %+v", run, i, v, reason)
			}
			if v == Hang {
				break
			}
		}
	}
}

func BenchmarkProcessEvent(b *testing.B) {
	for _, open := range []int{1, 100} {
		b.Run(fmt.Sprintf("open=%d", open), func(b *testing.B) {
			w := New(testThresholds(), t0)
			for i := range open {
				w.ProcessEvent(started(fmt.Sprint(i), 60000), t0)
			}
			now := t0
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(time.Millisecond)
				w.ProcessEvent(thinking, now)
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) {
	for _, open := range []int{1, 100} {
		b.Run(fmt.Sprintf("open=%d", open), func(b *testing.B) {
			w := New(testThresholds(), t0)
			for i := range open {
				w.ProcessEvent(started(fmt.Sprint(i), 60000), t0)
			}
			b.ReportAllocs()
			for b.Loop() {
				w.Check(t0.Add(time.Second))
				w.Decide(t0.Add(time.Second))
			}
		})
	}
}

// TestActivityAndCalls checks which silences activity can excuse: a call
// that declared no timeout is judged like silence, and a tool process that
// started with the open call counts; a dev server started before the call
// does not, a call past a declared deadline is not excused, and a tool
// process with no call open is no evidence.
func TestActivityAndCalls(t *testing.T) {
	t.Parallel()
	s := time.Second
	toolSince := func(start time.Duration) func(time.Duration) Activity {
		return func(time.Duration) Activity {
			return Activity{Procs: []Proc{{Pid: 7, Started: t0.Add(start), Under: true, OwnSession: true}}}
		}
	}
	cpu := func(d time.Duration) Activity { return Activity{CPU: d / 2} }
	for _, tc := range []struct {
		name     string
		first    stream.Event
		tree     func(time.Duration) Activity
		wantHang time.Duration
	}{
		{"undeclared call, its tool process alive", started("c", 0), toolSince(200 * time.Millisecond), 70 * s},
		{"undeclared call, nothing running", started("c", 0), func(time.Duration) Activity { return Activity{} }, 60 * s},
		{"undeclared call, a dev server from before", started("c", 0), toolSince(-5 * s), 60 * s},
		{"no call, a tool process", thinking, toolSince(0), 60 * s},
		{"declared call overdue, busy CPU", started("c", 10000), cpu, 60 * s},
		{"no call, busy CPU", thinking, cpu, 70 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := testThresholds()
			th.ActivityProbe = true
			th.MaxSilence = 70 * s
			w := New(th, t0)
			w.ProcessEvent(tc.first, t0)
			now := t0
			for range 100 {
				now = w.Decide(now).Next
				if w.WantsActivity(now) {
					w.ObserveActivity(tc.tree(now.Sub(t0)), now)
				}
				if v, r := w.Check(now); v == Hang {
					if got := now.Sub(t0); got != tc.wantHang {
						t.Errorf("hang at %v, want %v (%+v)", got, tc.wantHang, r.Evidence)
					}
					return
				}
			}
			t.Fatal("never hung")
		})
	}
}

// TestLateWindowStart checks a sample that comes only after the idle
// deadline (the orchestrator's timer was starved): the watchdog looks for
// one window of evidence before it declares the hang.
func TestLateWindowStart(t *testing.T) {
	t.Parallel()
	th := testThresholds()
	th.ActivityProbe = true
	s := time.Second
	for _, tc := range []struct {
		name     string
		cpu      time.Duration // CPU used per second
		wantHang time.Duration
	}{
		{"idle, hung one window later", 0, 64 * s},
		{"busy, to max_silence", 500 * time.Millisecond, 15 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := New(th, t0)
			w.ProcessEvent(thinking, at(0))
			now := at(60*s + 2*s) // the first sample, late
			w.ObserveActivity(Activity{CPU: time.Duration(float64(tc.cpu) * 62)}, now)
			if v, _ := w.Check(now); v == Hang {
				t.Fatal("hang declared on a late first sample, with no window of evidence")
			}
			for range 1000 {
				now = w.Decide(now).Next
				if w.WantsActivity(now) {
					w.ObserveActivity(Activity{CPU: time.Duration(float64(tc.cpu) * now.Sub(t0).Seconds())}, now)
				}
				if v, _ := w.Check(now); v == Hang {
					if got := now.Sub(t0); got != tc.wantHang {
						t.Errorf("hang at %v, want %v", got, tc.wantHang)
					}
					return
				}
			}
			t.Fatal("never hung")
		})
	}
}

// TestManyOpenCalls: an agent that opens a hundred thousand calls costs a
// bounded amount per event, and the reason and its sentence stay small.
func TestManyOpenCalls(t *testing.T) {
	t.Parallel()
	const n = 100_000
	w := New(testThresholds(), t0)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	for i := range n {
		now := at(time.Duration(i) * time.Millisecond)
		w.ProcessEvent(started(fmt.Sprint(i), 600_000+i), now)
		w.Decide(now)
	}
	for i := range n / 2 {
		now := at(time.Duration(n+i) * time.Millisecond)
		w.ProcessEvent(completed(fmt.Sprint(2*i)), now)
		w.Decide(now)
	}
	took := threadCPU() - start
	// Quadratic, this took minutes; about a second of CPU under -race. CPU
	// time, not the wall clock: a loaded machine stretched the wall clock
	// past 20s.
	t.Logf("%d opens and %d closes: %v of CPU", n, n/2, took)
	if took > 20*time.Second {
		t.Errorf("%d opens and %d closes took %v of CPU", n, n/2, took)
	}
	v, r := w.Check(at(2 * time.Hour))
	if v != Hang || r.OpenCount != n/2 || len(r.OpenCalls) != MaxReasonCalls || r.OpenCalls[0].ID != "1" {
		t.Errorf("verdict %v, %d open, %d listed, first %+v", v, r.OpenCount, len(r.OpenCalls), r.OpenCalls[0])
	}
	if d := r.Describe(); len(d) > 1000 || !strings.Contains(d, fmt.Sprintf("and %d more", n/2-3)) {
		t.Errorf("description of %d bytes: %.200s", len(d), d)
	}
	// The last declared deadline is the last call's: 600 s + 30 s grace
	// from its start.
	last := at(time.Duration(n-1)*time.Millisecond + time.Duration(600_000+n-1)*time.Millisecond + 30*time.Second)
	if v, _ := w.Check(last.Add(-time.Millisecond)); v == Hang {
		t.Error("hang before the last declared deadline")
	}
}
