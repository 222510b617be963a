package ptyproxy

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/words"
)

// The end of an attempt, as the loop drives it: signals passed on, the
// staged kill, the agent's exit and what it left behind. What to do when
// is the ending's to say (ending.go); this is the doing.

func (l *loop) onSignal(sig os.Signal, now time.Time) {
	if l.end.phase == Running {
		l.out.Cause, l.out.Signal = Interrupted, sig
		l.o.Console.Warn("got " + words.Signal(sig) + "; passing it to the agent")
		if ss, ok := sig.(syscall.Signal); ok {
			l.stop(now, ss, nil)
			return
		}
		l.stop(now, syscall.SIGTERM, nil)
		return
	}
	// A second signal does not wait for the grace.
	l.o.Console.Warn("got " + words.Signal(sig) + " while stopping the agent; killing it now")
	l.stopNow(now)
}

// stop begins the staged kill: SIGCONT and sig to the group and to the
// processes that left it, then SIGKILL after the kill grace unless the
// tree is gone by then.
//
// why, if not nil, is the record of the decision: it is written after the
// signals are sent (a log that is behind must not delay them) and before
// their records.
func (l *loop) stop(now time.Time, sig syscall.Signal, why sessionlog.Record) {
	l.endSilence(now)
	l.timer.Stop()
	cont, term := l.kill.signal(syscall.SIGCONT), l.kill.signal(sig)
	if why != nil {
		l.o.Log.Write(why)
	}
	l.logKill(syscall.SIGCONT, cont)
	l.logKill(sig, term)
	// The grace runs from once the signal is out (the walk of the tree
	// before it takes time on a loaded machine), never from before it: the
	// group gets at least the grace. A second clock read, for that alone.
	sent := l.clock.Now()
	l.end.stop(sent, l.o.KillGrace)
	l.askAgain(sent.Add(pollEvery))
	l.report(now, l.wd.Decide(now), true)
}

// stopNow skips the grace.
func (l *loop) stopNow(now time.Time) {
	l.endSilence(now)
	l.end.stop(now, 0)
	l.timer.Stop()
	l.settle(now)
}

func (l *loop) logKill(sig syscall.Signal, sent []int) {
	if len(sent) > 0 {
		l.o.Log.Write(sessionlog.Kill{Signal: words.Signal(sig), Pids: sent})
	}
}

// settle asks the ending what to do at now, and does it, until it says
// to wait.
func (l *loop) settle(now time.Time) {
	f := endFacts{exited: l.exited, drained: l.drained, writing: l.r.writingAt()}
	var left []procInfo // what the last look found
	for {
		act, at := l.end.next(now, f)
		switch act {
		case endWait:
			l.askAgain(at)
			return
		case endLook:
			left = l.tree.snapshot()
			f.looked, f.treeLeft, f.groupLeft = true, len(left) > 0, l.kill.groupIn(left)
		case endGiveUpStdout:
			l.giveUpStdout()
			f.drained = true
		case endKill:
			if sent := dedupe(l.kill.killAll()); len(sent) > 0 {
				l.o.Log.Write(sessionlog.Kill{Signal: "SIGKILL", Pids: sent})
			}
			f.killed = true
		case endStopLeftovers:
			l.noteLeftovers(left, "stopping them")
			l.stop(now, syscall.SIGTERM, nil)
			return
		case endKeepLeftovers:
			l.out.KeptLeftovers = true
			l.noteLeftovers(left, "keep_orphans leaves them alone")
			l.end.phase = Exiting
			return
		case endDone:
			l.end.phase = Exiting
			return
		}
	}
}

// askAgain sets the ending's timer to at; zero stops it.
func (l *loop) askAgain(at time.Time) {
	if at.IsZero() {
		l.endTimer.Stop()
		return
	}
	l.endTimer.Reset(at)
}

// noteLeftovers says what the agent left running when it exited by
// itself, and what becomes of it.
func (l *loop) noteLeftovers(left []procInfo, fate string) {
	for _, p := range left {
		l.out.Leftovers = append(l.out.Leftovers, commandLine(p.pid))
	}
	l.o.Log.Write(sessionlog.Leftovers{Message: "the agent exited and left processes running; " + fate, Processes: l.out.Leftovers})
}

// onExit handles the agent's exit: the parent's slave copy goes, so the
// master reads to its end, and the reader drains what is buffered even if
// a descendant still holds the PTY.
func (l *loop) onExit(st exitStatus, now time.Time) {
	l.exited = true
	l.out.ExitCode, l.out.ExitSignal = st.code, st.signal
	rec := sessionlog.AgentExited{Code: st.code}
	if st.signal != 0 {
		rec.Signal = words.Signal(st.signal)
	}
	l.o.Log.Write(rec)
	l.p.closeSlave()
	l.r.drain()
	l.timer.Stop()
	l.settle(now)
}

// giveUpStdout ends the drain of an attempt whose agent has exited but
// whose stdout has taken nothing for Stall: a caller that waits for
// the wrapper's exit before it reads would wait for ever. What was not
// written is lost, and said so.
func (l *loop) giveUpStdout() {
	err := fmt.Errorf("stdout took nothing for %s after the agent exited; the rest of its output was not delivered", Stall)
	l.out.Cause, l.out.StdoutErr = Downstream, err
	l.o.Log.Write(sessionlog.DownstreamClosed{Error: err.Error()})
	l.o.Console.Warn(err.Error())
	l.readDone = nil
	l.drained = true
}

// stdoutWords says what happened to stdout, for people.
func stdoutWords(err error) string {
	switch {
	case errors.Is(err, syscall.EPIPE):
		return "stdout was closed by its reader"
	case errors.Is(err, syscall.EBADF):
		return "stdout is not open for writing"
	}
	return "writing stdout failed: " + err.Error()
}

func dedupe(pids []int) []int {
	slices.Sort(pids)
	return slices.Compact(pids)
}
