package watchdog

import (
	"strings"
	"testing"
	"time"

	"cursor-wrap/stream"
)

var (
	trust = &stream.Question{Quote: "⚠ Workspace Trust Required", Fix: "pass --trust"}
	yesNo = &stream.Question{Quote: "Do you want to continue? [Y/n] Abort.", Fix: "answer it"}
)

// TestAskedStops: a question on stderr, then the agent seen waiting on its
// terminal, is a hang of kind person AskWait after the question's last
// byte, long before the idle timeout; the verdict says what was asked
// and what the agent waited on.
func TestAskedStops(t *testing.T) {
	w := New(testThresholds(), t0)
	w.Output(at(time.Second))
	w.Asked(Asking{Stderr: trust}, at(2*time.Second))
	d := w.Decide(at(3 * time.Second))
	if d.Verdict != OK || !d.Next.Equal(at(2*time.Second+AskWait)) {
		t.Fatalf("before the wait: %v, next %v", d.Verdict, d.Next)
	}
	w.ObserveInput(InputTerminal, at(2*time.Second+AskWait))
	v, r := w.Check(at(2*time.Second + AskWait))
	if v != Hang || r.Kind != KindPerson || r.Question != trust.Quote || r.Silence != AskWait || r.WaitingOn != "terminal" {
		t.Fatalf("after the wait: %v %+v", v, r)
	}
	if s := r.Describe(); !strings.Contains(s, `"⚠ Workspace Trust Required"`) || !strings.HasSuffix(s, "pass --trust") {
		t.Errorf("Describe: %s", s)
	}
	var back Reason
	b, _ := r.MarshalJSON()
	if err := back.UnmarshalJSON(b); err != nil || back.Question != r.Question || back.Fix != r.Fix || back.WaitingOn != "terminal" {
		t.Errorf("round trip %s: %+v, %v", b, back, err)
	}
}

// personStep is one moment of a question's timeline: do something at at,
// then check the verdict, the rule behind it, and whether a look at the
// agent's input is wanted.
type personStep struct {
	at   time.Duration
	do   func(w *Watchdog, now time.Time)
	want Verdict
	kind string // the reason's kind, "" to leave unchecked
	look bool   // WantsInput, before do
}

func asks(a Asking) func(*Watchdog, time.Time) {
	return func(w *Watchdog, now time.Time) { w.Asked(a, now) }
}

func sees(in Input) func(*Watchdog, time.Time) {
	return func(w *Watchdog, now time.Time) { w.ObserveInput(in, now) }
}

func feeds(x stream.Event) func(*Watchdog, time.Time) {
	return func(w *Watchdog, now time.Time) { w.ProcessEvent(x, now) }
}

func writes(w *Watchdog, now time.Time) { w.Output(now) }

// TestPersonGate: the wait for input is the gate. A question counts only
// once the agent is seen waiting to read its terminal or stdin AskWait
// after the question (or any later output); words while it does not wait
// are never a question, whatever is open. Where the kernel cannot tell,
// only a question on the terminal with no tool call open counts.
func TestPersonGate(t *testing.T) {
	const ms = time.Millisecond
	s := time.Second
	for _, tc := range []struct {
		name  string
		steps []personStep
	}{
		{"waits on its terminal", []personStep{
			{0, feeds(initEv), OK, KindIdle, false},
			{s, asks(Asking{Stderr: trust}), OK, KindIdle, false},
			{6*s - ms, nil, OK, KindIdle, false},
			{6 * s, nil, OK, KindIdle, true}, // due, but not looked at yet
			{6 * s, sees(InputTerminal), Hang, KindPerson, true},
		}},
		{"waits on its stdin, a question on its terminal", []personStep{
			{0, asks(Asking{Terminal: yesNo}), OK, "", false},
			{5 * s, sees(InputStdin), Hang, KindPerson, true},
		}},
		{"not waiting: never a question, looked at again each second", []personStep{
			{0, asks(Asking{Stderr: yesNo, Terminal: yesNo}), OK, "", false},
			{5 * s, sees(InputNone), OK, KindIdle, true},
			{6*s - ms, nil, OK, KindIdle, false},
			{6 * s, sees(InputNone), OK, KindIdle, true},
			{60 * s, sees(InputNone), Hang, KindIdle, true},
		}},
		{"starts waiting after a look that saw none", []personStep{
			{0, asks(Asking{Stderr: trust}), OK, "", false},
			{5 * s, sees(InputNone), OK, KindIdle, true},
			{6 * s, sees(InputTerminal), Hang, KindPerson, true},
		}},
		{"a look before the wait is over is not used", []personStep{
			{0, asks(Asking{Stderr: trust}), OK, "", false},
			{4 * s, sees(InputTerminal), OK, KindIdle, false},
			{5 * s, nil, OK, KindIdle, true},
		}},
		{"a tool call open: the wait decides", []personStep{
			{0, feeds(started("a", 120000)), Waiting, KindTool, false},
			{s, asks(Asking{Stderr: yesNo}), Waiting, KindTool, false},
			{6 * s, sees(InputNone), Waiting, KindTool, true},
			{7 * s, sees(InputTerminal), Hang, KindPerson, true},
		}},
		{"output after the question moves the wait", []personStep{
			{0, asks(Asking{Stderr: trust}), OK, "", false},
			{3 * s, writes, OK, "", false},
			{5 * s, nil, OK, KindIdle, false},
			{8 * s, sees(InputTerminal), Hang, KindPerson, true},
		}},
		{"an event of the stream clears the question", []personStep{
			{0, asks(Asking{Stderr: trust}), OK, "", false},
			{4 * s, feeds(thinking), OK, KindIdle, false},
			{9 * s, nil, OK, KindIdle, false},
		}},
		{"the answer clears it", []personStep{
			{0, asks(Asking{Stderr: trust}), OK, "", false},
			{s, feeds(result), OK, KindExit, false},
			{4 * s, nil, OK, KindExit, false},
		}},
		{"unknown: a question on the terminal counts", []personStep{
			{0, asks(Asking{Terminal: yesNo}), OK, "", false},
			{5 * s, sees(InputUnknown), Hang, KindPerson, true},
		}},
		{"unknown: a question on stderr does not", []personStep{
			{0, asks(Asking{Stderr: trust}), OK, "", false},
			{5 * s, sees(InputUnknown), OK, KindIdle, true},
			{60 * s, nil, Hang, KindIdle, true},
		}},
		{"unknown: nor one on the terminal while a tool call is open", []personStep{
			{0, feeds(started("a", 120000)), Waiting, KindTool, false},
			{s, asks(Asking{Terminal: yesNo}), Waiting, KindTool, false},
			{6 * s, sees(InputUnknown), Waiting, KindTool, true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := New(testThresholds(), t0)
			for i, st := range tc.steps {
				now := at(st.at)
				if got := w.WantsInput(now); got != st.look {
					t.Fatalf("step %d (t=%v): wants a look %v, want %v", i, st.at, got, st.look)
				}
				if st.do != nil {
					st.do(w, now)
				}
				v, r := w.Check(now)
				if v != st.want || st.kind != "" && r.Kind != st.kind {
					t.Fatalf("step %d (t=%v): %v of kind %s, want %v of kind %s; reason %+v", i, st.at, v, r.Kind, st.want, st.kind, r)
				}
			}
		})
	}
}

// TestPersonNext: the next instant the watchdog names is the look at the
// agent's input, at the wait's end and then every askLook, so the
// orchestrator's one timer brings the look.
func TestPersonNext(t *testing.T) {
	w := New(testThresholds(), t0)
	w.Asked(Asking{Stderr: trust}, t0)
	if d := w.Decide(t0); !d.Next.Equal(at(AskWait)) {
		t.Fatalf("next %v, want the wait's end", d.Next.Sub(t0))
	}
	w.ObserveInput(InputNone, at(AskWait))
	if d := w.Decide(at(AskWait)); !d.Next.Equal(at(AskWait + askLook)) {
		t.Fatalf("after a look that saw no wait: next %v", d.Next.Sub(t0))
	}
	w.Asked(Asking{}, at(AskWait+100*time.Millisecond))
	if w.WantsInput(at(time.Hour)) {
		t.Errorf("words that ask nothing still want a look")
	}
}
