package ptyproxy

import "time"

// The end of an attempt, as a pure step: the loop tells it what it knows
// (the agent exited, its output drained, what is left of its tree) and the
// time, and it answers what to do and when to ask again. Like the
// watchdog, it reads no clock, starts nothing and looks at no process;
// the loop does what it says.

// An ending is where an attempt is on its way out.
type ending struct {
	phase  Phase
	stopAt time.Time // SIGKILL due, while Stopping
	// keepOrphans leaves alone what the agent leaves running when it exits
	// by itself.
	keepOrphans bool
}

// endFacts are what the loop knows when it asks.
type endFacts struct {
	exited  bool // the agent exited and was reaped
	drained bool // its output was read to the end, or given up on
	// writing is when the stdout write under way began, zero if none.
	writing time.Time
	// looked says the tree was looked at for this step: treeLeft and
	// groupLeft hold.
	looked    bool
	treeLeft  bool // a process of the attempt is running
	groupLeft bool // one of them in the agent's process group
	// killed says what was left was sent SIGKILL in this step, round after
	// round until a look found nothing: it counts as gone.
	killed bool
}

// endAction is what the loop does next.
type endAction int

const (
	endWait          endAction = iota // nothing now; ask again at the instant given, or at the next event if zero
	endLook                           // look at the tree, then ask again
	endGiveUpStdout                   // stdout took nothing for Stall: count the output as drained, then ask again
	endKill                           // SIGKILL what is left, then ask again
	endStopLeftovers                  // the agent exited and left processes: begin the staged kill
	endKeepLeftovers                  // the agent exited and left processes, to be kept: the attempt is over
	endDone                           // nothing of the attempt is left: it is over
)

// pollEvery paces the looks at the tree while stopping.
const pollEvery = 10 * time.Millisecond

// Stall is how long the wrapper's stdout or stderr that takes none of
// what is left to write is waited for, once the agent has exited: then it
// is given up on, and what it did not take is said (the console's Close
// follows the same rule).
const Stall = 10 * time.Second

// stallEvery paces the checks of stdout once the agent has exited, while
// no write is under way (one may begin at any time).
const stallEvery = time.Second

// stop begins the staged kill at now: the agent's group gets grace to exit
// on the signal the loop sends.
func (e *ending) stop(now time.Time, grace time.Duration) {
	e.phase = Stopping
	e.stopAt = now.Add(grace)
}

// next says what to do at now. Running, the attempt ends when the agent
// exits and its output is drained: at once if it left nothing, else by the
// staged kill of what it left (or by keeping it). Stopping, the agent's
// group gets the grace to exit on the signal; once it is gone, or the
// grace is over, what is left, such as tools in their own sessions, is
// killed at once. Either way the output is drained before the end, and a
// stdout that takes none of it for Stall is given up on.
func (e ending) next(now time.Time, f endFacts) (endAction, time.Time) {
	if e.phase == Exiting {
		return endDone, time.Time{}
	}
	var stallAt time.Time // when stdout is next checked; zero unless draining
	if f.exited && !f.drained {
		if f.writing.IsZero() {
			stallAt = now.Add(stallEvery)
		} else if stallAt = f.writing.Add(Stall); !now.Before(stallAt) {
			return endGiveUpStdout, time.Time{}
		}
	}
	if e.phase == Running {
		switch {
		case !f.exited:
			return endWait, time.Time{} // The watchdog's timer runs the attempt.
		case !f.drained:
			return endWait, stallAt
		case !f.looked:
			return endLook, time.Time{}
		case !f.treeLeft:
			return endDone, time.Time{}
		case e.keepOrphans:
			return endKeepLeftovers, time.Time{}
		}
		return endStopLeftovers, time.Time{}
	}
	if f.exited && !f.looked {
		return endLook, time.Time{}
	}
	gone := f.exited && (!f.treeLeft || f.killed)
	if !gone && !f.killed && (!now.Before(e.stopAt) || f.exited && !f.groupLeft) {
		return endKill, time.Time{}
	}
	if gone && f.drained {
		return endDone, time.Time{}
	}
	at := now.Add(pollEvery)
	if !stallAt.IsZero() && stallAt.Before(at) {
		at = stallAt
	}
	return endWait, at
}
