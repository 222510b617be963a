package watchdog

import (
	"strings"
	"testing"
	"time"

	"cursor-wrap/stream"
)

var trust = &stream.Question{Quote: "⚠ Workspace Trust Required", Fix: "pass --trust"}

// TestAskedStops: a question only a person can answer, then quiet, is a
// hang of kind person AskWait after its last byte, long before the idle
// timeout, with no warning first; the verdict says what was asked.
func TestAskedStops(t *testing.T) {
	th := testThresholds()
	th.WarnBefore = time.Minute
	w := New(th, t0)
	w.Output(t0.Add(time.Second))
	w.Asked(trust, t0.Add(2*time.Second))
	d := w.Decide(t0.Add(3 * time.Second))
	if d.Verdict != OK || !d.Next.Equal(t0.Add(2*time.Second+AskWait)) {
		t.Fatalf("before the wait: %v, next %v", d.Verdict, d.Next)
	}
	v, r := w.Check(t0.Add(2*time.Second + AskWait))
	if v != Hang || r.Kind != KindPerson || r.Question != trust.Quote || r.Silence != AskWait {
		t.Fatalf("after the wait: %v %+v", v, r)
	}
	if s := r.Describe(); !strings.Contains(s, `"⚠ Workspace Trust Required"`) || !strings.HasSuffix(s, "pass --trust") {
		t.Errorf("Describe: %s", s)
	}
	var back Reason
	b, _ := r.MarshalJSON()
	if err := back.UnmarshalJSON(b); err != nil || back.Question != r.Question || back.Fix != r.Fix {
		t.Errorf("round trip %s: %+v, %v", b, back, err)
	}
}

// TestAskedForgotten: output after the question moves the stop later, an
// event of the stream clears the question, and so does its answer.
func TestAskedForgotten(t *testing.T) {
	w := New(testThresholds(), t0)
	w.Asked(trust, t0)
	w.Output(t0.Add(3 * time.Second))
	if v := w.Decide(t0.Add(AskWait)).Verdict; v != OK {
		t.Errorf("output after the question: %v at %s", v, AskWait)
	}
	w.ProcessEvent(stream.Event{Type: "assistant"}, t0.Add(4*time.Second))
	if v := w.Decide(t0.Add(4*time.Second + AskWait)).Verdict; v != OK {
		t.Errorf("an event after the question: %v", v)
	}
	w.Asked(trust, t0.Add(5*time.Second))
	w.ProcessEvent(stream.Event{Type: "result", Terminal: true}, t0.Add(6*time.Second))
	if _, r := w.Check(t0.Add(time.Minute)); r.Kind == KindPerson {
		t.Errorf("after the answer: %+v", r)
	}
}
