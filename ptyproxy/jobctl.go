package ptyproxy

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
)

// Job control. The user's terminal sends Ctrl-Z (SIGTSTP) to its
// foreground process group, the wrapper's; SIGTTIN and SIGTTOU go there
// too. The agent runs in a session of its own under the wrapper's PTY and
// gets none of them, so the wrapper stops the agent's tree itself, stops
// with its job, and continues the tree when the shell continues it (fg,
// bg): as without the wrapper, the agent stops and goes on with the job.

// A Terminal is the user's terminal, as the wrapper stopping with its job
// touches it. The wrapper never sets it raw (the agent has a PTY of its
// own), so its modes are the shell's to keep.
type Terminal interface {
	// Suspend is called before the wrapper stops: what the wrapper drew
	// there (a status line) is taken down, for the shell writes there next.
	Suspend()
	// Resume is called once the wrapper is continued. It returns the
	// terminal's size then, which may have changed meanwhile (zero if
	// unknown).
	Resume() WinSize
}

// JobStops returns the channel of the job-control stops an attempt
// follows (IO.Stops): SIGTSTP, SIGTTIN and SIGTTOU, except one ignored
// when the process started (a shell without job control, nohup): that
// one stays ignored, as it would for the agent alone.
func JobStops() <-chan os.Signal {
	stops := make(chan os.Signal, 1)
	for _, sig := range []os.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU} {
		if !signal.Ignored(sig) {
			signal.Notify(stops, sig)
		}
	}
	return stops
}

// StopWithJob stops the wrapper as sig (a stop signal JobStops gave)
// would have, t (nil for none) told before and after, and returns once the
// wrapper is continued, with the terminal's size then (zero if unknown).
// Between attempts that is all a stop does; during one, the attempt stops
// the agent's tree around it.
func StopWithJob(sig os.Signal, t Terminal) WinSize {
	if t != nil {
		t.Suspend()
	}
	ss, ok := sig.(syscall.Signal)
	if !ok {
		ss = syscall.SIGTSTP
	}
	stopSelf(ss)
	if t == nil {
		return WinSize{}
	}
	return t.Resume()
}

// onJobStop stops the agent's whole tree (SIGSTOP: the group, and the
// processes that left it), stops the wrapper with its job, and once
// continued, continues the tree and tells the watchdog that the time
// between was no silence. An attempt on its way out (the agent exited, or
// being stopped) is left to end: the wrapper stops alone.
func (l *loop) onJobStop(sig os.Signal, now time.Time) {
	running := l.end.phase == Running && !l.exited
	if running {
		// What the agent wrote before the stop counts before it.
		l.takeBatches(now)
		running = l.end.phase == Running && !l.exited
	}
	if running {
		l.endSilence(now)
		l.timer.Stop()
		l.logKill(syscall.SIGSTOP, l.kill.signal(syscall.SIGSTOP))
	}
	size := StopWithJob(sig, l.o.Terminal)
	back := l.clock.Now()
	if size.Rows > 0 && size.Cols > 0 {
		// Before the agent goes on, so it sees the new size at once.
		if err := l.p.resize(size); err != nil {
			l.o.Log.Write(sessionlog.Warning{Message: "resize pty: " + err.Error()})
		}
	}
	if !running {
		return
	}
	l.logKill(syscall.SIGCONT, l.kill.signal(syscall.SIGCONT))
	l.wd.Stopped(now, back)
	l.last = back
	l.decide(back, back)
}
