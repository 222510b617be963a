package watchdog

import (
	"testing"
	"time"
)

// TestDefaultsKeepThinkingPause: macOS reads no model connection, so the
// defaults alone must not stop a 5-minute thinking pause (the agent at 1%
// of a core, its stream silent), nor a single request's 600 s.
func TestDefaultsKeepThinkingPause(t *testing.T) {
	w := New(DefaultThresholds(), t0)
	w.ProcessEvent(thinking, at(0))
	for now := at(0); now.Before(at(600 * time.Second)); now = now.Add(time.Second) {
		if w.WantsActivity(now) {
			w.ObserveActivity(Activity{CPU: now.Sub(t0) / 100}, now)
		}
		if v, r := w.Check(now); v == Hang {
			t.Fatalf("a thinking pause stopped at %v: %s", now.Sub(t0), r.Describe())
		}
	}
}
