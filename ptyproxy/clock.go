package ptyproxy

import "time"

// A Clock is where an attempt gets the time: its loop reads it once per
// wake-up and passes that instant down, and its reader stamps each batch
// with it. Run uses Options.Clock, the system's by default; tests pass a
// fake one, to time an attempt without waiting. A job times its run on
// the same clock.
//
// Deadlines on files (the PTY's drain, the last read of stderr) are not
// taken from it: the kernel's poller keeps them, on the system clock.
type Clock interface {
	Now() time.Time
	NewTimer() Timer // stopped until Reset
}

// A Timer is a time.Timer seen through a Clock, set for an instant:
// after Stop or Reset returns, no stale time is received from C (Go 1.23
// timers).
type Timer interface {
	C() <-chan time.Time
	Reset(at time.Time)
	Stop()
}

// SystemClock is the system's clock.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer() Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return systemTimer{t}
}

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Reset(at time.Time)  { t.t.Reset(time.Until(at)) }
func (t systemTimer) Stop()               { t.t.Stop() }
