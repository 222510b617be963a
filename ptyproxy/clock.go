package ptyproxy

import "time"

// A loopClock is where an attempt gets the time: its loop reads it once per
// wake-up and passes that instant down, and its reader stamps each batch
// with it. Run uses the system's; tests pass a fake one, to time an attempt
// without waiting.
//
// Deadlines on files (the PTY's drain, the last read of stderr) are not
// taken from it: the kernel's poller keeps them, on the system clock.
type loopClock interface {
	Now() time.Time
	NewTimer() loopTimer // stopped until Reset
}

// A loopTimer is a time.Timer seen through a loopClock, set for an instant:
// after Stop or Reset returns, no stale time is received from C (Go 1.23
// timers).
type loopTimer interface {
	C() <-chan time.Time
	Reset(at time.Time)
	Stop()
}

// systemClock is the system's clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer() loopTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return systemTimer{t}
}

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Reset(at time.Time)  { t.t.Reset(time.Until(at)) }
func (t systemTimer) Stop()               { t.t.Stop() }
