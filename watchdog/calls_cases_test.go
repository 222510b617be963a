package watchdog

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"cursor-wrap/stream"
)

// TestToolEndsTheModelWaitGoesOn: while a tool of the agent's runs, the
// agent waits on the tool, not its model, and keep-alives excuse nothing;
// once the tool ended they do again, for the same model call.
func TestToolEndsTheModelWaitGoesOn(t *testing.T) {
	t.Parallel()
	s := time.Second
	opens := stream.Event{Type: "system", Model: stream.ModelOpens}
	tool := stream.Event{Type: "tool_call", Started: []stream.Call{{ID: "c1", Kind: "shell", Command: "make"}}}
	ended := stream.Event{Type: "tool_call", Ended: []string{"c1"}}
	pings := wire{id: 1, packets: joined(request(100*time.Millisecond, 22<<10), every(10*s, 10*s, 0, true, 30))}
	for _, tc := range []struct {
		name   string
		events []timedEvent
		want   time.Duration
	}{
		// The cap counts from the tool's end, the last output.
		{"the tool ended", []timedEvent{{0, opens}, {time.Second, tool}, {5 * s, ended}}, 605 * s},
		{"the tool still runs", []timedEvent{{0, opens}, {time.Second, tool}}, 61 * s},
	} {
		if got, r := runConnsAfter(t, testThresholds(), tc.events, pings); got != tc.want {
			t.Errorf("%s: hang at %v, want %v; %s", tc.name, got, tc.want, r.Describe())
		}
	}
}

// TestSamplesWhileTheModelIsWaitedOn: the connections are sampled once a
// window while the model is waited on, to see each keep-alive come; not
// while a tool runs (its work is judged a window before the deadline),
// and not at all where the idle timeout leaves no room for a window.
func TestSamplesWhileTheModelIsWaitedOn(t *testing.T) {
	t.Parallel()
	s := time.Second
	samples := func(th Thresholds, evs ...stream.Event) []time.Duration {
		th.ActivityProbe, th.ConnProbe = true, true
		w := New(th, t0)
		for _, e := range evs {
			w.ProcessEvent(e, t0)
		}
		var got []time.Duration
		for now := w.Decide(t0).Next; now.Before(at(20 * s)); now = w.Decide(now).Next {
			if w.WantsActivity(now) {
				got = append(got, now.Sub(t0))
				w.ObserveActivity(Activity{}, now)
			}
			if v, _ := w.Check(now); v == Hang {
				break
			}
		}
		return got
	}
	opens := stream.Event{Type: "system", Model: stream.ModelOpens}
	tool := stream.Event{Type: "tool_call", Started: []stream.Call{{ID: "c1", Kind: "shell"}}}
	if got, want := fmt.Sprint(samples(testThresholds(), opens)), "[2s 4s 6s 8s 10s 12s 14s 16s 18s]"; got != want {
		t.Errorf("the model waited on: samples at %s, want %s", got, want)
	}
	if got := samples(testThresholds(), opens, tool); len(got) != 0 {
		t.Errorf("a tool running: samples at %v in the first 20s, want none", got)
	}
	tiny := testThresholds()
	tiny.IdleTimeout = time.Nanosecond
	if got := samples(tiny, opens); len(got) != 0 {
		t.Errorf("a 1ns idle timeout: samples at %v, want none", got)
	}
	w := New(tiny, t0)
	w.ProcessEvent(opens, t0)
	if v, _ := w.Check(at(time.Nanosecond)); v != Hang {
		t.Errorf("a 1ns idle timeout: %v at 1ns", v)
	}
}

// TestToolTimeoutOfZero: a [tool_timeouts] entry that is not positive
// (which Validate refuses, naming it) declares no budget: the call is
// judged as an undeclared one, by the idle timeout and the evidence.
func TestToolTimeoutOfZero(t *testing.T) {
	t.Parallel()
	th := testThresholds()
	th.ToolTimeouts = map[string]time.Duration{"shell": 0, "read": -time.Second}
	err := th.Validate()
	if err == nil || !strings.Contains(err.Error(), "tool_timeouts.read: -1s is not positive\ntool_timeouts.shell: 0s is not positive") {
		t.Errorf("Validate: %v", err)
	}
	w := New(th, t0)
	w.ProcessEvent(stream.Event{Type: "tool_call", Started: []stream.Call{{ID: "c1", Kind: "shell"}}}, t0)
	if w.declaredOpen() {
		t.Error("a tool_timeouts entry of 0 declared a budget")
	}
	if v, _ := w.Check(at(time.Second)); v == Hang {
		t.Error("a call with a tool_timeouts entry of 0 hung at once")
	}
}

// TestClosedCallsLeaveMemory: the heaps of open calls follow the calls
// open, not the calls ever opened, whichever order they close in.
func TestClosedCallsLeaveMemory(t *testing.T) {
	t.Parallel()
	o := newOpenCalls()
	th := testThresholds()
	for i := range 1000 {
		o.open(stream.Call{ID: fmt.Sprint(i), Timeout: time.Minute}, at(time.Duration(i)*time.Millisecond), th)
	}
	for i := 999; i >= 10; i-- { // the newest first: never the heaps' tops
		o.close(fmt.Sprint(i))
	}
	if o.starts.Len() > 65 || o.deadlines.Len() > 65 {
		t.Errorf("10 calls open, the heaps hold %d and %d", o.starts.Len(), o.deadlines.Len())
	}
}

// TestStopOfNoTime: a stop the clock cannot tell from none (Ctrl-Z and
// fg in the same instant) is not output: the silence goes on.
func TestStopOfNoTime(t *testing.T) {
	t.Parallel()
	w := New(testThresholds(), t0)
	w.ProcessEvent(assistant, t0)
	w.Stopped(at(30*time.Second), at(30*time.Second))
	if v, _ := w.Check(at(60 * time.Second)); v != Hang {
		t.Errorf("a stop of no time moved the silence: %v at the idle timeout", v)
	}
}
