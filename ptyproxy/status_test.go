package ptyproxy

import (
	"testing"
	"time"

	"cursor-wrap/watchdog"
)

// TestStatusPhase checks the words of the status line for each phase of a
// run, as the watchdog's last event tells it.
func TestStatusPhase(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		last, session string
		want          string
	}{
		{"start", "", "starting"},
		{"system/init", "2d8f4a61-9e0b-4c37-b5a2-7f1e6d3c9b08", "started, session 2d8f4a61; waiting for the model"},
		{"thread.started", "th-1", "started, session th-1; waiting for the model"},
		{"init", "", "waiting for the model"},
		{"user", "s-1", "waiting for the model"},
		{"tool_call/completed", "s-1", "waiting for the model"},
		{"thinking/delta", "s-1", "thinking"},
		{"assistant", "s-1", "writing"},
		{"text", "", "writing"},
		{"result/success", "s-1", "working (last: result/success)"},
	} {
		st := Status{Now: now, Started: now.Add(-3 * time.Second), Verdict: watchdog.OK, Phase: Running,
			Reason: watchdog.Reason{LastEventType: tc.last, SessionID: tc.session, Silence: time.Second, DueIn: time.Minute}}
		want := "cursor-wrap 3s | " + tc.want + " | silent 1s | hang in 1m0s"
		if got := st.Line(now); got != want {
			t.Errorf("after %s:\n got %q\nwant %q", tc.last, got, want)
		}
	}
}
