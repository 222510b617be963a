package watchdog

import "time"

// Activity is a cumulative sample of the attempt's processes, as /proc
// reports them. Only differences between samples matter.
//
// # Why
//
// Without partial output a healthy cursor-agent can be silent for many
// minutes while the model writes a long reply, and 25–39 s while it
// compacts its context. A hung agent is idle. A stalled Claude Code was
// measured at 0.4–1.1% of a core, so only activity above the floors
// counts as evidence.
//
// # Whose
//
// Evidence counts only for what it belongs to. CPU is the agent's own:
// its process and the one runtime process its profile names (Codex's
// native binary under node), whose CPU always counts. What those two read
// is not work and is not reported: their model connection is judged by
// the connection rule (Conns), their terminal and stdin by the person
// rule, and the rest is their own housekeeping (real Codex reads 1.6–2.6
// KB/s from inotify, its skills watcher on /etc and $CODEX_HOME/skills,
// on a busy host, stalled or not). Every other process of the attempt is
// a Proc, and counts, CPU and reads, only as counts says: a busy orphan
// left behind, or a helper the agent runs beside its work, is no sign
// that the agent is at work.
type Activity struct {
	CPU time.Duration
	// Procs are the attempt's other processes: the agent's descendants,
	// and those that left its ancestry (Under false).
	Procs []Proc
	// Conns are the TCP connections of the agent process and its runtime
	// process (not of helpers, tools or leftovers), where the platform
	// tells them (Linux); nil elsewhere.
	Conns []Conn
}

// Evidence is what the activity probe saw, for the hang record.
type Evidence struct {
	Windows       int           // windows evaluated since the last output
	ActiveWindows int           // of which above a floor
	CPUPercent    float64       // in the last window, percent of one core
	ReadPerSec    float64       // in the last window, bytes per second read by counted tools
	Tool          bool          // an open call's tool process was running
	Extended      time.Duration // silence excused beyond the idle timeout
	// Worked says what earned the last active window: WorkedBusy (CPU or
	// bytes read above a floor) or WorkedTool (only a tool of the open
	// call, running); Pid and Process name the process that earned it
	// (the counted one that did the most, 0 and "" for the agent's own
	// work), and CallID the open call it started after ("" in text mode,
	// where no call is seen).
	Worked  string
	Pid     int
	Process string
	CallID  string
	// Conn is the remote address of the connection that excuses the
	// silence, "" if none does; Earned says why (EarnedContent or
	// EarnedKeepAlive); ConnQuiet is how long before the check data last
	// arrived on it, Content how many bytes of content came in the
	// silence, Period the longest gap seen between its arrivals, and
	// ModelWait how long the model had been waited on (the stream's model
	// call, or in text mode the connection's request), 0 if it was not.
	Conn      string
	Earned    string
	ConnQuiet time.Duration
	Content   int64
	Period    time.Duration
	ModelWait time.Duration
}

// What earned an active window (Evidence.Worked).
const (
	WorkedBusy = "work" // CPU, or a tool's bytes read, above a floor
	WorkedTool = "tool" // a tool of the open call running, even asleep
)

// activityWindow is the span one activity decision looks back over.
const activityWindow = 2 * time.Second

// window is the evaluation window: never more than half the idle timeout,
// so its start falls after the last output and the sample that opens it is
// taken by a timer, not on the event path.
func (w *Watchdog) window() time.Duration {
	return min(activityWindow, w.th.IdleTimeout/2)
}

// probing reports whether the silence limit is the one that can fire, and
// activity may excuse it: no call with a declared budget is open.
func (w *Watchdog) probing() bool {
	return w.th.ActivityProbe && !w.done && w.window() > 0 && !w.declaredOpen()
}

// windowOpen reports whether a window is open in this silence.
func (w *Watchdog) windowOpen() bool { return w.win.ok && !w.win.at.Before(w.last) }

// judgeAt is when the open window is judged: a window after it opened
// while the agent works (one window after another, from the last that
// showed work, so that the silence is measured from the end of its work),
// or if it opened at or after the activity deadline (a late sample; in
// text mode, while the model connection still excuses the silence); else
// at the activity deadline.
func (w *Watchdog) judgeAt() time.Time {
	due := w.actDue()
	if w.windowOpen() && (w.working() || !w.win.at.Before(due)) {
		return w.win.at.Add(w.window())
	}
	return due
}

// working reports whether the open window follows one that showed work in
// this silence.
func (w *Watchdog) working() bool {
	return w.workedAt.After(w.last) && w.win.at.Equal(w.workedAt)
}

// watchingConns reports whether samples are wanted all through the
// silence, one a window: while the model is waited on (in text mode, as
// far as can be told, always), to see each keep-alive arrive, learn their
// gaps, and see them stop.
func (w *Watchdog) watchingConns() bool {
	return w.th.ConnProbe && (w.th.TextMode || w.modelOpen && w.calls.tools == 0)
}

// nextSample is when a sample is next wanted, if one is: the one that
// opens the window before the activity deadline (or opens it again there,
// when the window open began earlier), the one that judges it,
// while the connections are watched one every window, and one at the
// instant what a connection earned runs out, so that a keep-alive or
// content that came just before is seen before a hang is declared,
// whatever the phase of the samples.
func (w *Watchdog) nextSample() (time.Time, bool) {
	if !w.probing() {
		return time.Time{}, false
	}
	next := w.judgeAt()
	if open := next.Add(-w.window()); !w.windowOpen() {
		next = w.actDue().Add(-w.window())
	} else if w.win.at.Before(open) && open.After(w.sampled) {
		next = open
	}
	if every := maxTime(w.last, w.sampled).Add(w.window()); w.watchingConns() && every.Before(next) {
		next = every
	}
	if due, _, _, ok := w.connDue(); ok && due.After(w.sampled) && due.Before(next) {
		next = due
	}
	return next, true
}

// WantsActivity reports whether a sample taken at now would be used: the
// orchestrator samples the tree only then, so a flowing stream costs
// nothing.
func (w *Watchdog) WantsActivity(now time.Time) bool {
	next, ok := w.nextSample()
	return ok && !now.Before(next)
}

// ObserveActivity feeds a sample of the agent's processes and connections
// taken at now. The first sample of a silence opens a window, and later
// ones move its start up to a window before the activity deadline; the
// sample at or after the deadline closes it and decides: above a floor,
// the silence runs from now (up to MaxSilence), and the next window opens
// at once; below, the deadline stands. The connections are looked at in every sample (see
// Conn). Samples never move the silence clock itself.
func (w *Watchdog) ObserveActivity(a Activity, now time.Time) {
	if !w.probing() {
		return
	}
	defer w.noteExtension()
	first := !w.windowOpen()
	if first {
		w.evidence = Evidence{}
		w.newSilence()
	}
	w.observeConns(a.Conns, now)
	w.sampled = now
	if first {
		if !now.Before(w.idleDue()) && !w.reloaded {
			// The sample that should have opened this window came late (a
			// starved timer): look for one window before deciding, rather
			// than judge a busy agent without evidence.
			w.lookThrough = now.Add(w.window())
		}
		w.win = sample{at: now, a: a, ok: true}
		return
	}
	judge := w.judgeAt()
	if !now.After(judge.Add(-w.window())) {
		w.win = sample{at: now, a: a, ok: true} // a later start, still a whole window
		return
	}
	if now.Before(judge) {
		return // keep the window open until the deadline
	}
	// Judged at or after its judging time, a window is at least one
	// window long.
	dt := now.Sub(w.win.at)
	wk := w.workBetween(w.win.a, a)
	w.evidence.Windows++
	w.evidence.CPUPercent = 100 * wk.cpu.Seconds() / dt.Seconds()
	w.evidence.ReadPerSec = float64(wk.read) / dt.Seconds()
	w.evidence.Tool = wk.tool.Pid != 0
	busy := w.evidence.CPUPercent >= 100*w.th.ActivityCPUFloor || w.evidence.ReadPerSec >= w.th.ActivityReadFloor
	if busy || w.evidence.Tool {
		w.evidence.ActiveWindows++
		w.workedAt = now
		by := wk.top
		w.evidence.Worked = WorkedBusy
		if !busy {
			by, w.evidence.Worked = wk.tool, WorkedTool
		}
		w.evidence.Pid, w.evidence.Process, w.evidence.CallID = by.Pid, by.Name, ""
		if c, open := w.calls.oldestCall(); open && w.evidence.Pid != 0 && !w.th.TextMode {
			w.evidence.CallID = c
		}
	}
	w.win = sample{at: now, a: a, ok: true}
}

// noteExtension records how far evidence has moved the silence limit.
func (w *Watchdog) noteExtension() {
	w.evidence.Extended = max(w.evidence.Extended, w.idleDue().Sub(w.last.Add(w.th.IdleTimeout)))
}
