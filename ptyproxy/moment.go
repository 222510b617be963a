package ptyproxy

import (
	"sync/atomic"
	"time"
)

// origin is the process's start on the system clock, monotonic reading
// included: every moment is stored as its distance from it.
var origin = time.Now()

// A moment is a time shared between goroutines without a lock, or none.
// It keeps the monotonic reading that a Unix-nanosecond stamp loses, so
// that a step of the wall clock (NTP, a VM resumed, a user's date -s)
// neither gives up on a reader early nor waits on it for hours: the
// stalls and drains of stdout and stderr are measured on it.
type moment struct {
	since atomic.Int64 // ns after origin, plus one; 0 when none
}

func (m *moment) set(t time.Time) { m.since.Store(int64(t.Sub(origin)) + 1) }

func (m *moment) clear() { m.since.Store(0) }

// get returns the moment and true, or false when none is set.
func (m *moment) get() (time.Time, bool) {
	s := m.since.Load()
	if s == 0 {
		return time.Time{}, false
	}
	return origin.Add(time.Duration(s - 1)), true
}

// earlier returns the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
