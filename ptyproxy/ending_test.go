package ptyproxy

import (
	"testing"
	"time"
)

var actionNames = [...]string{"wait", "look", "give up stdout", "kill", "stop leftovers", "keep leftovers", "done"}

func (a endAction) String() string { return actionNames[a] }

// TestEndingNext checks the end of an attempt step by step: no PTY, no
// process, no clock. Times are offsets from now.
func TestEndingNext(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) time.Time { return now.Add(d) }
	const never = time.Duration(-1) // no instant: wait for an event
	running := ending{phase: Running}
	keeping := ending{phase: Running, keepOrphans: true}
	inGrace := ending{phase: Stopping, stopAt: at(time.Second)}
	graceOver := ending{phase: Stopping, stopAt: now}
	gone := endFacts{exited: true, drained: true, looked: true}
	for _, c := range []struct {
		name string
		e    ending
		f    endFacts
		want endAction
		at   time.Duration // from now; never for none
	}{
		{"running: the watchdog's timer runs it", running, endFacts{}, endWait, never},
		{"running: the output ended before the exit", running, endFacts{drained: true}, endWait, never},
		{"exited, draining, no write under way: stdout checked each second", running, endFacts{exited: true}, endWait, stallEvery},
		{"exited, a write under way for 3s: given up 10s after it began", running, endFacts{exited: true, writing: at(-3 * time.Second)}, endWait, 7 * time.Second},
		{"exited, a write under way for 10s: given up", running, endFacts{exited: true, writing: at(-Stall)}, endGiveUpStdout, never},
		{"exited and drained: look at the tree", running, endFacts{exited: true, drained: true}, endLook, never},
		{"exited, drained, nothing left: done", running, gone, endDone, never},
		{"exited, drained, processes left: stop them", running, endFacts{exited: true, drained: true, looked: true, treeLeft: true}, endStopLeftovers, never},
		{"... unless they are kept", keeping, endFacts{exited: true, drained: true, looked: true, treeLeft: true}, endKeepLeftovers, never},
		{"keeping, nothing left: done", keeping, gone, endDone, never},

		{"stopping, agent alive, in the grace: poll", inGrace, endFacts{}, endWait, pollEvery},
		{"stopping, agent alive, grace over: kill", graceOver, endFacts{}, endKill, never},
		{"stopping, agent alive, just killed: poll, no second kill", graceOver, endFacts{killed: true}, endWait, pollEvery},
		{"stopping, exited: look at the tree", inGrace, endFacts{exited: true, drained: true}, endLook, never},
		{"stopping, exited, the group left: it gets the grace", inGrace, endFacts{exited: true, drained: true, looked: true, treeLeft: true, groupLeft: true}, endWait, pollEvery},
		{"stopping, exited, the group gone, others left: kill at once", inGrace, endFacts{exited: true, drained: true, looked: true, treeLeft: true}, endKill, never},
		{"stopping, exited, the group left, grace over: kill", graceOver, endFacts{exited: true, drained: true, looked: true, treeLeft: true, groupLeft: true}, endKill, never},
		{"stopping, exited, killed, drained: done", graceOver, endFacts{exited: true, drained: true, looked: true, treeLeft: true, killed: true}, endDone, never},
		{"stopping, exited, killed, draining: poll", graceOver, endFacts{exited: true, looked: true, treeLeft: true, killed: true}, endWait, pollEvery},
		{"stopping, exited, nothing left, drained: done", inGrace, gone, endDone, never},
		{"stopping, draining, stdout due before the poll", inGrace, endFacts{exited: true, looked: true, writing: at(5*time.Millisecond - Stall)}, endWait, 5 * time.Millisecond},
		{"stopping, draining, a write under way for 10s: given up", inGrace, endFacts{exited: true, writing: at(-Stall)}, endGiveUpStdout, never},
		{"stopping, drained, agent alive: poll", inGrace, endFacts{drained: true}, endWait, pollEvery},

		{"exiting: done", ending{phase: Exiting}, endFacts{}, endDone, never},
	} {
		act, when := c.e.next(now, c.f)
		want := time.Time{}
		if c.at != never {
			want = at(c.at)
		}
		if act != c.want || !when.Equal(want) {
			t.Errorf("%s: %v at %v, want %v at %v", c.name, act, when.Sub(now), c.want, c.at)
		}
	}
}

// TestEndingGrace walks a staged kill whose agent ignores the signal: the
// tree is looked at every pollEvery, and SIGKILL is due when the grace is
// over, not before.
func TestEndingGrace(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const grace = 400 * time.Millisecond
	e := ending{phase: Running}
	e.stop(start, grace)
	now, looks := start, 0
	for {
		act, at := e.next(now, endFacts{drained: true})
		if act == endKill {
			break
		}
		if act != endWait || at.Sub(now) != pollEvery {
			t.Fatalf("at %v: %v at %v, want a poll", now.Sub(start), act, at)
		}
		now, looks = at, looks+1
	}
	if now.Sub(start) != grace || looks != int(grace/pollEvery) {
		t.Errorf("SIGKILL %v after the signal, after %d looks; want the %v grace", now.Sub(start), looks, grace)
	}
	if act, _ := e.next(now, endFacts{drained: true, exited: true, looked: true, killed: true}); act != endDone {
		t.Errorf("after the kill, once the agent is reaped: %v, want done", act)
	}
}
