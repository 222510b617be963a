package ptyproxy

import (
	"testing"
	"time"
)

// TestSendReloadKeepsNewest: with nobody reading, sends never block and the
// reader then takes only the newest.
func TestSendReloadKeepsNewest(t *testing.T) {
	t.Parallel()
	ch := make(chan Reload, 1)
	for i := 1; i <= 3; i++ {
		SendReload(ch, Reload{Tick: time.Duration(i)})
	}
	if got := (<-ch).Tick; got != 3 {
		t.Errorf("reader took the reload with tick %d, want the newest (3)", got)
	}
	select {
	case r := <-ch:
		t.Errorf("a stale reload was left behind: %+v", r)
	default:
	}
}
