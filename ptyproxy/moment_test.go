package ptyproxy

import (
	"strings"
	"testing"
	"time"
)

// TestMomentKeepsTheMonotonicClock: a moment read back is the time set,
// monotonic reading and all (time.Time's String shows it as "m=+"), so
// the stalls measured from it ignore steps of the wall clock; a Unix-ns
// stamp, which the reader and the consoles kept before, loses it.
func TestMomentKeepsTheMonotonicClock(t *testing.T) {
	var m moment
	if _, ok := m.get(); ok {
		t.Fatal("a moment never set reads as set")
	}
	now := time.Now()
	m.set(now)
	got, ok := m.get()
	if !ok || !got.Equal(now) || got.Sub(now) != 0 {
		t.Fatalf("set %v, got %v (%v)", now, got, ok)
	}
	if !strings.Contains(got.String(), "m=+") {
		t.Errorf("%v has no monotonic reading", got)
	}
	if strings.Contains(time.Unix(0, now.UnixNano()).String(), "m=+") {
		t.Errorf("a Unix-ns stamp kept the monotonic reading: this test proves nothing")
	}
	// A fake clock's time, far from the process's start, reads back too.
	fake := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	m.set(fake)
	if got, ok := m.get(); !ok || !got.Equal(fake) {
		t.Errorf("set %v, got %v", fake, got)
	}
	m.clear()
	if _, ok := m.get(); ok {
		t.Error("a cleared moment reads as set")
	}
	if e := earlier(fake, now); !e.Equal(fake) {
		t.Errorf("earlier(%v, %v) = %v", fake, now, e)
	}
}
