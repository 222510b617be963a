package watchdog

import "time"

// Activity is a cumulative sample of the attempt's processes: the CPU
// time used and bytes read, as /proc reports them. Only differences
// between samples matter.
//
// # Why
//
// Without partial output a healthy cursor-agent can be silent for many
// minutes while the model writes a long reply, and 25–39 s while it
// compacts its context. A hung agent is idle. A stalled Claude Code was
// measured at 0.4–1.1% of a core and 100–170 B/s read (keep-alives), so
// only activity above both floors' reach counts as evidence.
//
// # Whose
//
// Evidence counts only for what it belongs to. CPU and ReadBytes are the
// agent's own: its process and the one runtime process its profile names
// (Codex's native binary under node), which always count. Every other
// process of the attempt is a Proc, and counts only as counts says: a
// busy orphan left behind, or a helper the agent runs beside its work, is
// no sign that the agent is at work.
type Activity struct {
	CPU       time.Duration
	ReadBytes int64
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
	ReadPerSec    float64       // in the last window, bytes per second
	Tool          bool          // an open call's tool process was running
	Extended      time.Duration // silence excused beyond the idle timeout
	// Pid is the process whose work earned the last active window: the
	// counted process that did the most, 0 for the agent's own work; and
	// CallID the open call it started after ("" in text mode, where no
	// call is seen).
	Pid    int
	CallID string
	// Conn is the remote address of the connection that last showed a
	// response streaming in during this silence, "" if none did;
	// ConnQuiet is how long before the check its data last arrived.
	Conn      string
	ConnQuiet time.Duration
}

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

// wantsWindowStart reports whether a sample is wanted to open the window
// that ends at the activity deadline.
func (w *Watchdog) wantsWindowStart() bool {
	return w.probing() && !w.windowOpen()
}

// windowOpen reports whether a window is open in this silence.
func (w *Watchdog) windowOpen() bool { return w.win.ok && !w.win.at.Before(w.last) }

// judgeAt is when the open window is judged: at the activity deadline, or
// a window after it opened if it opened after that, while the model
// connection still excuses the silence: work resuming is seen, and text
// mode counts the connection's cap from the agent's last work.
func (w *Watchdog) judgeAt() time.Time {
	due := w.actDue()
	if w.windowOpen() && !w.win.at.Before(due) {
		return w.win.at.Add(w.window())
	}
	return due
}

// WantsActivity reports whether a sample taken at now would be used: the
// orchestrator samples the tree only then, so a flowing stream costs
// nothing.
func (w *Watchdog) WantsActivity(now time.Time) bool {
	return w.probing() && !now.Before(w.actDue().Add(-w.window()))
}

// ObserveActivity feeds a sample of the agent's tree taken at now. A sample
// opens a window; a sample at or after the activity deadline closes it and
// decides: above a floor, the silence is excused for one more window (up to
// MaxSilence); below, the idle rule stands. The model connection is looked
// at in every sample (see Conn). Samples never move the silence clock
// itself.
func (w *Watchdog) ObserveActivity(a Activity, now time.Time) {
	if !w.probing() {
		return
	}
	defer w.noteExtension()
	if !w.windowOpen() {
		w.evidence = Evidence{}
		w.observeConns(a.Conns, now)
		if !now.Before(w.idleDue()) && !w.reloaded {
			// The sample that should have opened this window came late (a
			// starved timer): look for one window before deciding, rather
			// than judge a busy agent without evidence.
			w.activeThrough = now.Add(w.window())
		}
		w.win = sample{at: now, a: a, ok: true}
		return
	}
	w.observeConns(a.Conns, now)
	if now.Before(w.judgeAt()) {
		return // keep the window open until the deadline
	}
	dt := now.Sub(w.win.at)
	if dt <= 0 {
		return
	}
	wk := w.workBetween(w.win.a, a)
	w.evidence.Windows++
	w.evidence.CPUPercent = 100 * wk.cpu.Seconds() / dt.Seconds()
	w.evidence.ReadPerSec = float64(wk.read) / dt.Seconds()
	w.evidence.Tool = wk.tool != 0
	busy := w.evidence.CPUPercent >= 100*w.th.ActivityCPUFloor || w.evidence.ReadPerSec >= w.th.ActivityReadFloor
	if busy || w.evidence.Tool {
		w.evidence.ActiveWindows++
		w.activeThrough = now.Add(w.window())
		w.evidence.Pid = wk.top
		if !busy {
			w.evidence.Pid = wk.tool
		}
		w.evidence.CallID = ""
		if c, open := w.calls.oldestCall(); open && w.evidence.Pid != 0 && !w.th.TextMode {
			w.evidence.CallID = c
		}
	}
	w.win = sample{at: now, a: a, ok: true}
}

// noteExtension records how far evidence has moved the silence limit.
func (w *Watchdog) noteExtension() {
	if ext := w.idleDue().Sub(w.last.Add(w.th.IdleTimeout)); ext > w.evidence.Extended {
		w.evidence.Extended = ext
	}
}
