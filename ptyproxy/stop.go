package ptyproxy

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
)

// The end of an attempt: signals passed on, the staged kill, the agent's
// exit and what it left behind.

func (l *loop) onSignal(sig os.Signal) {
	if l.phase == Running {
		l.out.Cause, l.out.Signal = Interrupted, sig
		l.o.Console.Warn("got " + sig.String() + "; passing it to the agent")
		if ss, ok := sig.(syscall.Signal); ok {
			l.stop(ss, nil)
			return
		}
		l.stop(syscall.SIGTERM, nil)
		return
	}
	// A second signal does not wait for the grace.
	l.o.Console.Warn("got " + sig.String() + " again; killing the agent now")
	l.stopNow()
}

// stop begins the staged kill: SIGCONT and sig to the group and to the
// processes that left it, then SIGKILL after the kill grace unless the
// tree is gone by then.
//
// why, if not nil, is the record of the decision: it is written after the
// signals are sent (a log that is behind must not delay them) and before
// their records.
func (l *loop) stop(sig syscall.Signal, why sessionlog.Record) {
	l.endSilence(time.Now())
	l.phase = Stopping
	l.timer.Stop()
	cont, term := l.kill.signal(syscall.SIGCONT), l.kill.signal(sig)
	if why != nil {
		l.o.Log.Write(why)
	}
	l.logKill(syscall.SIGCONT, cont)
	l.logKill(sig, term)
	l.stopAt = time.Now().Add(l.o.KillGrace)
	l.startPoll()
	now := time.Now()
	l.report(now, l.wd.Decide(now), true)
}

// stopNow skips the grace.
func (l *loop) stopNow() {
	l.endSilence(time.Now())
	if l.phase == Running {
		l.phase = Stopping
		l.timer.Stop()
	}
	l.stopAt = time.Now()
	l.startPoll()
	l.onPoll(time.Now())
}

func (l *loop) logKill(sig syscall.Signal, sent []int) {
	if len(sent) > 0 {
		l.o.Log.Write(sessionlog.Kill{Signal: sigName(sig), Pids: sent})
	}
}

// pollEvery paces the checks that the tree is gone while stopping.
const pollEvery = 10 * time.Millisecond

func (l *loop) startPoll() {
	if l.poll == nil {
		l.poll = time.NewTicker(pollEvery)
	}
}

// onPoll runs while stopping or cleaning up. The agent's group gets the
// grace to exit on the signal; once it is gone (or the grace is over) what
// is left, such as tools in their own sessions, is killed at once.
func (l *loop) onPoll(now time.Time) {
	var left []procInfo // what is left of the attempt, once the agent exited
	if l.exited {
		left = l.tree.snapshot()
	}
	gone := l.exited && len(left) == 0
	if !gone && (!now.Before(l.stopAt) || l.exited && !l.kill.groupIn(left)) {
		if sent := dedupe(l.kill.killAll()); len(sent) > 0 {
			l.o.Log.Write(sessionlog.Kill{Signal: "SIGKILL", Pids: sent})
		}
		gone = l.exited
	}
	if gone && l.drained {
		l.poll.Stop()
		l.poll = nil
		l.phase = Exiting
	}
}

// onExit handles the agent's exit: the parent's slave copy goes, so the
// master reads to its end, and the reader drains what is buffered even if
// a descendant still holds the PTY.
func (l *loop) onExit(st exitStatus) {
	l.exited = true
	l.out.ExitCode, l.out.ExitSignal = st.code, st.signal
	rec := sessionlog.AgentExited{Code: st.code}
	if st.signal != 0 {
		rec.Signal = sigName(st.signal)
	}
	l.o.Log.Write(rec)
	l.p.closeSlave()
	l.r.drain()
	l.timer.Stop()
	if l.drained {
		l.afterExit()
		return
	}
	l.stall = time.NewTicker(time.Second)
}

// setDrained notes the agent's output read to its end.
func (l *loop) setDrained() {
	l.drained = true
	if l.stall != nil {
		l.stall.Stop()
		l.stall = nil
	}
}

// giveUpStdout ends an attempt whose agent has exited but whose stdout has
// taken nothing for stdoutStall: a caller that waits for the wrapper's exit
// before it reads would wait for ever. What was not written is lost, and
// said so.
func (l *loop) giveUpStdout() {
	err := fmt.Errorf("stdout took nothing for %s after the agent exited; the rest of its output was not delivered", stdoutStall)
	l.out.Cause, l.out.StdoutErr = Downstream, err
	l.o.Log.Write(sessionlog.DownstreamClosed{Error: err.Error()})
	l.o.Console.Warn(err.Error())
	l.setDrained()
	l.afterExit()
}

// stdoutWords says what happened to stdout, for people.
func stdoutWords(err error) string {
	switch {
	case errors.Is(err, syscall.EPIPE):
		return "stdout was closed by its reader"
	case errors.Is(err, syscall.EBADF):
		return "stdout is closed"
	}
	return "writing stdout failed: " + err.Error()
}

// afterExit runs once the agent exited and its output is drained: what is
// left of the tree gets the staged kill.
func (l *loop) afterExit() {
	if !l.exited {
		return // EOF before the exit: the exit will come
	}
	if l.phase == Running {
		left := l.tree.snapshot()
		if len(left) == 0 {
			l.phase = Exiting
			return
		}
		for _, p := range left {
			l.out.Leftovers = append(l.out.Leftovers, commandLine(p.pid))
		}
		if l.o.KeepOrphans {
			l.out.KeptLeftovers = true
			l.o.Log.Write(sessionlog.Leftovers{Message: "the agent exited and left processes running; keep_orphans leaves them alone", Processes: l.out.Leftovers})
			l.phase = Exiting
			return
		}
		l.o.Log.Write(sessionlog.Leftovers{Message: "the agent exited and left processes running; stopping them", Processes: l.out.Leftovers})
		l.stop(syscall.SIGTERM, nil)
		return
	}
	l.onPoll(time.Now())
}

func sigName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGCONT:
		return "SIGCONT"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}

func dedupe(pids []int) []int {
	slices.Sort(pids)
	return slices.Compact(pids)
}
