package ptyproxy

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/stream"
)

// fakeClock is a Clock that moves only when a test moves it.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan struct{} // closed, and replaced, when a timer is set
}

type fakeTimer struct {
	c  *fakeClock
	ch chan time.Time
	at time.Time
	on bool
}

func newFakeClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, armed: make(chan struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer() Timer {
	t := &fakeTimer{c: c, ch: make(chan time.Time, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Reset(at time.Time) {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t.drain()
	t.at, t.on = at, true
	c.fire()
	close(c.armed)
	c.armed = make(chan struct{})
}

func (t *fakeTimer) Stop() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	t.on = false
}

// drain takes back a time sent and not received: as with Go's timers, none
// is received after Stop or Reset.
func (t *fakeTimer) drain() {
	select {
	case <-t.ch:
	default:
	}
}

// fire sends on the timers that are due; c.mu held.
func (c *fakeClock) fire() {
	for _, t := range c.timers {
		if t.on && !t.at.After(c.now) {
			t.on = false
			t.ch <- c.now // Never blocks: drained when set.
		}
	}
}

// advanceToNext waits until a timer is set to go off before limit, or
// until stop is closed (false), and moves the clock to the first such
// timer's instant, firing it.
func (c *fakeClock) advanceToNext(t *testing.T, limit time.Time, stop <-chan struct{}) bool {
	t.Helper()
	giveUp := time.NewTimer(20 * time.Second) // Only a broken loop gets here.
	defer giveUp.Stop()
	for {
		c.mu.Lock()
		var next time.Time
		for _, t := range c.timers {
			if t.on && t.at.Before(limit) && (next.IsZero() || t.at.Before(next)) {
				next = t.at
			}
		}
		armed := c.armed
		if !next.IsZero() {
			c.now = next
			c.fire()
			c.mu.Unlock()
			return true
		}
		c.mu.Unlock()
		select {
		case <-armed:
		case <-stop:
			return false
		case <-giveUp.C:
			t.Fatalf("at %v no timer was set before %v", c.Now(), limit)
		}
	}
}

// stuckWriter is a stdout whose reader takes the first take bytes, as a
// pipe would, then nothing at all until release is closed.
type stuckWriter struct {
	mu      sync.Mutex
	took    int
	take    int
	release chan struct{}
	stuck   chan struct{} // closed when a write first waits
	once    sync.Once
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	full := w.took+len(p) > w.take
	if !full {
		w.took += len(p)
	}
	w.mu.Unlock()
	if full {
		w.once.Do(func() { close(w.stuck) })
		<-w.release
	}
	return len(p), nil
}

// runStuck runs o on clock: the clock stands still until stuck is closed
// (a writer took nothing more) or the run ends, then goes from timer to
// timer, up to until, while the run lasts. It returns the run's outcome.
func runStuck(t *testing.T, o Options, clock *fakeClock, stuck <-chan struct{}, until time.Time) Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res Outcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if res, err = run(ctx, o, clock); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	select {
	case <-stuck:
	case <-done:
	}
	for clock.advanceToNext(t, until, done) {
	}
	<-done
	return res
}

// TestStdoutTakesNothing: the agent writes more than the wrapper's stdout
// takes and exits. Once stdout has taken nothing for Stall, the rest
// of the output is given up on, said so, and the attempt ends. On the fake
// clock the test does not wait the 10 s a real one would.
func TestStdoutTakesNothing(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := newFakeClock(start)
	out := &stuckWriter{take: 64 << 10, release: make(chan struct{}), stuck: make(chan struct{})}
	defer close(out.release)
	th := fast()
	th.IdleTimeout, th.MaxSilence = 30*time.Minute, time.Hour
	// 70 KB: more than stdout takes, and little enough for the terminal to
	// hold the rest, so that the agent can exit.
	o := Options{Path: self, Args: []string{fakeagent.Subcommand, "lines", "700", "100", "exit", "0"}, Env: agentEnv(),
		IO: IO{Stdout: out}, Parse: stream.Parse, Thresholds: th, Tick: time.Hour, KillGrace: time.Second}
	// The clock stands still until stdout takes nothing: the write under
	// way began at the start. Then the watchdog's deadlines are half an hour
	// away: only the ending's timer (and, at the very end, the last read of
	// stderr) goes off.
	res := runStuck(t, o, clock, out.stuck, start.Add(time.Minute))
	if res.Cause != Downstream || res.StdoutErr == nil || !strings.Contains(res.StdoutErr.Error(), "stdout took nothing for 10s") {
		t.Errorf("outcome %+v", res)
	}
	if res.ExitCode != 0 || res.Ended.Sub(start) < Stall || res.Ended.Sub(start) > Stall+stallEvery {
		t.Errorf("exit %d, ended %v after the start on the fake clock; want the agent's 0 after about %v", res.ExitCode, res.Ended.Sub(start), Stall)
	}
}
