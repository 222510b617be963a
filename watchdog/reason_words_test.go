package watchdog

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestToolRuleSaysWhenEachPartFell checks that a hang by the tool rule
// says that it needs both of its parts and when each fell due: with a 5 s
// tool grace the call's deadline passes long before the idle timeout's
// silence, which decides; the words read the same from the log.
func TestToolRuleSaysWhenEachPartFell(t *testing.T) {
	t.Parallel()
	th := testThresholds()
	th.IdleTimeout, th.ToolGrace = time.Minute, 5*time.Second
	w := New(th, t0)
	w.ProcessEvent(started("c1", 1), at(0)) // its deadline: 1ms declared and the grace
	if v, _ := w.Check(at(time.Minute - time.Millisecond)); v == Hang {
		t.Fatal("a hang before the idle timeout's silence")
	}
	// The loop sees the silence fall due 7ms late, as on a loaded
	// machine: the part the verdict waited for is still "at the verdict",
	// and the other is said from the verdict.
	v, r := w.Check(at(time.Minute + 7*time.Millisecond))
	want := "; the tool rule needs both: the deadlines passed 55s before the verdict, and the silence reached the idle timeout of 1m0s at the verdict"
	if v != Hang || r.Kind != KindTool || !strings.HasSuffix(r.Describe(), want) {
		t.Fatalf("late: %s: %s\nwant the end %s", r.Kind, r.Describe(), want)
	}
	w = New(th, t0)
	w.ProcessEvent(started("c1", 1), at(0))
	v, r = w.Check(at(time.Minute))
	want = "; the tool rule needs both: the deadlines passed 55s before the verdict, and the silence reached the idle timeout of 1m0s at the verdict"
	if v != Hang || r.Kind != KindTool || !strings.HasSuffix(r.Describe(), want) {
		t.Fatalf("%s: %s\nwant the end %s", r.Kind, r.Describe(), want)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Reason
	if err := json.Unmarshal(b, &back); err != nil || back.Describe() != r.Describe() {
		t.Errorf("read back from %s: %q (%v)", b, back.Describe(), err)
	}
}

// TestHardTimeoutTimesOut checks that hard_timeout's verdict says the
// attempt timed out, a cap, not that it hung.
func TestHardTimeoutTimesOut(t *testing.T) {
	t.Parallel()
	r := Reason{Kind: KindDeadline, Threshold: 5 * time.Minute}
	if got, want := r.Describe(), "the attempt timed out at its hard timeout of 5m0s, a cap on its time whatever it was doing"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
