package job

import (
	"testing"
	"time"

	"cursor-wrap/stream"
)

// TestBackoffNeverWraps: the doubling wait after the nth restart grows,
// stays capped at ten minutes and never wraps negative, however many
// restarts a run allows.
func TestBackoffNeverWraps(t *testing.T) {
	t.Parallel()
	e := &stream.AgentError{Kind: stream.RateLimit}
	prev := time.Duration(0)
	for n := 1; n <= 1000; n++ {
		d := backoff(e, n)
		if d < prev || d <= 0 || d > maxDoubling {
			t.Fatalf("restart %d: backoff %v after %v", n, d, prev)
		}
		prev = d
	}
	if got := backoff(e, 1); got != firstBackoff {
		t.Errorf("first backoff %v, want %v", got, firstBackoff)
	}
	if got := backoff(e, 100); got != maxDoubling {
		t.Errorf("100th backoff %v, want %v", got, maxDoubling)
	}
}
