// Package watchdog decides when a headless agent is hung. Its Watchdog is a
// pure state machine: it is fed the agent's events, samples of its process
// tree's activity and an explicit time, and it answers a Verdict, a Reason
// and the next instant at which its answer could change. It owns no
// goroutine and never reads the clock, so the orchestrator can time it
// exactly and tests can drive it with a fake clock. Its Thresholds carry
// their own validation; the config file they come from is read elsewhere.
package watchdog

import (
	"time"

	"cursor-wrap/stream"
)

// A Verdict is the watchdog's answer at one instant.
type Verdict int

const (
	// OK: output is flowing or silence is still short.
	OK Verdict = iota
	// Waiting: tool calls are running, so silence is expected.
	Waiting
	// Warn: a hang will be declared at Reason.HangAt unless output arrives.
	Warn
	// Hang: the agent is hung; kill it.
	Hang
	// Overdue: the agent finished its answer but has not exited within
	// the exit grace; kill it, and count the run as a success.
	Overdue
)

func (v Verdict) String() string {
	switch v {
	case OK:
		return "ok"
	case Waiting:
		return "waiting"
	case Warn:
		return "warn"
	case Hang:
		return "hang"
	case Overdue:
		return "overdue"
	}
	return "unknown"
}

// Notice flags what an event changed that the orchestrator should act on
// or log; several can be set at once.
type Notice int

const (
	// UnknownCall: a call ended that never started (or ended twice).
	UnknownCall Notice = 1 << iota
	// DuplicateCall: a call started again; its first start is kept.
	DuplicateCall
	// NewSession: the stream named the session id, or a new one.
	NewSession
	// UsageChanged: the total the agent reported spending changed (see
	// Usage).
	UsageChanged
	// PassedAtEnd: the total passed a budget after the terminal event,
	// when the run can no longer be stopped short of it (see OverBudget).
	PassedAtEnd
)

// NoNotice is an event with nothing to mention.
const NoNotice Notice = 0

// sample is an activity sample taken at an instant.
type sample struct {
	at time.Time
	a  Activity
	ok bool
}

// A Watchdog tracks one attempt of one agent run.
//
// # Rules
//
// Any output proves the stream alive. With no tool call open, a silence
// that reaches IdleTimeout is a hang, unless the agent's process tree was
// busy in the window just before (see Activity), which extends the limit
// window by window up to MaxSilence, or a response was streaming in on
// its model connection (see Conn), which runs the idle timeout from the
// data's arrival, up to MaxSilence too (in text mode, see idleDue). With calls open, each call has its own
// deadline from its own start: the declared timeout plus ToolGrace, else
// ToolTimeouts[kind], else IdleTimeout. A hang then needs every open call
// past its deadline and a silence that reaches IdleTimeout (events that
// still flow prove the agent alive even when a completion was lost). A call
// that declares no timeout (and has no ToolTimeouts budget) gets the idle
// timeout, judged like silence: activity can excuse it.
// HardTimeout caps the attempt in every phase, whatever the stream says.
// After the terminal event there is no hang, only Overdue: once ExitGrace
// passes without output, once the agent has gone on writing for
// max(ExitGrace, IdleTimeout) since its answer, or at the hard deadline.
// Time the agent spends stopped by job control counts towards none of
// these (see Stopped).
type Watchdog struct {
	th    Thresholds
	start time.Time
	last  time.Time // last output of any kind
	// The last line's envelope, kept as fields: copying a whole Event on
	// every line costs the hot path a fifth more.
	lastType, lastSub string
	lastNotJSON       bool
	calls             openCalls
	session           string
	done              bool
	doneAt            time.Time // when the terminal event arrived

	win     sample    // start of the current activity window
	sampled time.Time // the last sample's time
	// workedAt is when the last window that showed the agent at work
	// ended: the silence runs from there (see actDue). lookThrough is the
	// one window a late first sample is given to look for work.
	workedAt, lookThrough time.Time
	evidence              Evidence
	conns                 map[uint64]*connState // the agent's connections (see Conn)
	// modelOpen is set while the stream says the agent waits on its model
	// (its profile's table), since modelSince.
	modelOpen  bool
	modelSince time.Time
	// reloaded is set by SetThresholds until the next output: a hang the
	// new thresholds make due is declared at once, not after a window.
	reloaded bool

	ask asking // a question only a person can answer (person.go)

	spent spending // budget.go
}

// New returns a Watchdog for an attempt that started at start.
func New(th Thresholds, start time.Time) *Watchdog {
	return &Watchdog{th: th, start: start, last: start, lastType: "start", calls: newOpenCalls()}
}

// Thresholds returns the thresholds in force.
func (w *Watchdog) Thresholds() Thresholds { return w.th }

// SetThresholds replaces the thresholds. Open calls' deadlines move at
// once; the caller should decide right away, since the new values may make
// a hang due.
func (w *Watchdog) SetThresholds(th Thresholds) {
	w.th, w.reloaded = th, true
	w.calls.rebudget(th)
}

// SessionID returns the session id the stream announced, if any.
func (w *Watchdog) SessionID() string { return w.session }

// Done reports whether the terminal event arrived.
func (w *Watchdog) Done() bool { return w.done }

// Output records bytes that arrived without completing a line, or output
// the orchestrator could not read because its own stdout was blocked: both
// prove the agent alive.
func (w *Watchdog) Output(now time.Time) {
	if now.After(w.last) {
		w.last = now
	}
	w.reloaded = false
}

// ProcessEvent records one line of output received at now.
func (w *Watchdog) ProcessEvent(ev stream.Event, now time.Time) Notice {
	w.Output(now)
	if !ev.NotJSON {
		w.ask.Asking = Asking{} // An event: the agent is past any question.
	}
	w.lastType, w.lastSub, w.lastNotJSON = ev.Type, ev.Subtype, ev.NotJSON
	notice := NoNotice
	if ev.SessionID != "" && ev.SessionID != w.session {
		w.session = ev.SessionID
		notice |= NewSession
	}
	for _, c := range ev.Started {
		if !w.calls.open(c, now, w.th) {
			notice |= DuplicateCall
		}
	}
	for _, id := range ev.Ended {
		if !w.calls.close(id) {
			notice |= UnknownCall
		}
	}
	switch ev.Model {
	case stream.ModelOpens:
		if !w.modelOpen {
			w.modelOpen, w.modelSince = true, now
		}
	case stream.ModelCloses:
		w.modelOpen = false
	}
	if ev.Terminal && !w.done {
		w.done, w.doneAt = true, now
	}
	return notice | w.spend(ev, now)
}

// declaredOpen reports whether an open call has a declared budget.
func (w *Watchdog) declaredOpen() bool { return w.calls.declared > 0 }

// maxSilence is the longest silence that activity evidence can excuse.
func (w *Watchdog) maxSilence() time.Duration {
	return max(w.th.MaxSilence, w.th.IdleTimeout)
}

// actDue is when the idle rule declares a hang on the agent's output and
// work alone (CPU, a tool's reads, a tool). A silence is measured from
// the last evidence, not from the last byte: the idle timeout runs from
// the end of the last window that showed work, as it would from output,
// so an agent slow to write after its tool ended gets the whole timeout.
// In stream-json mode that evidence excuses silence up to max_silence. In
// text mode the agent says nothing until it ends, so its own work excuses
// any silence: hard_timeout is the user's cap.
func (w *Watchdog) actDue() time.Time {
	due := w.last.Add(w.th.IdleTimeout)
	if w.workedAt.After(w.last) {
		due = w.workedAt.Add(w.th.IdleTimeout)
	}
	due = maxTime(due, w.lookThrough)
	if limit := w.last.Add(w.maxSilence()); !w.th.TextMode && due.After(limit) {
		due = limit
	}
	return due
}

// idleDue is when the idle rule declares a hang, evidence included: the
// agent's work (actDue), or later what its connections excuse (connDue).
func (w *Watchdog) idleDue() time.Time {
	due := w.actDue()
	if conn, _, _, ok := w.connDue(); ok && conn.After(due) {
		due = conn
	}
	return due
}

// exitDue is when an agent that finished its answer is overdue, and by
// which rule: the exit grace runs from the terminal event or from any
// output after it, so an agent still writing its last bytes is not cut
// off, but an agent that goes on writing after its answer is stopped
// max(ExitGrace, IdleTimeout) after it, and the hard deadline holds too.
func (w *Watchdog) exitDue() (time.Time, string) {
	due := w.last.Add(w.th.ExitGrace)
	if limit := w.doneAt.Add(max(w.th.ExitGrace, w.th.IdleTimeout)); limit.Before(due) {
		due = limit
	}
	if hard, ok := w.hardDeadline(); ok && !hard.After(due) {
		return hard, KindDeadline
	}
	return due, KindExit
}

// hardDeadline is when the attempt reaches its hard timeout, if it has one.
func (w *Watchdog) hardDeadline() (time.Time, bool) {
	if w.th.HardTimeout <= 0 {
		return time.Time{}, false
	}
	return w.start.Add(w.th.HardTimeout), true
}

// hangAt is when the stream rules (not the hard deadline) declare a hang:
// the silence limit, or later the last declared call deadline.
func (w *Watchdog) hangAt() (at time.Time, kind string) {
	at = w.idleDue()
	if len(w.calls.byID) == 0 {
		return at, KindIdle
	}
	if d, ok := w.calls.latestDeadline(); ok && d.After(at) {
		at = d
	}
	return at, KindTool
}

// killAt is the earliest instant any rule declares a hang. A passed
// budget is due from when the total passed it: at once.
func (w *Watchdog) killAt() (time.Time, string) {
	if budget, _, _ := w.OverBudget(); budget != "" {
		return w.spent.at, KindBudget
	}
	at, kind := w.hangAt()
	if q, ask := w.question(); q != nil && ask.Before(at) {
		at, kind = ask, KindPerson
	}
	if hard, ok := w.hardDeadline(); ok && !hard.After(at) {
		return hard, KindDeadline
	}
	return at, kind
}

// A Decision is the watchdog's answer at one instant, without the
// reason behind it (Check builds that).
type Decision struct {
	Verdict Verdict
	// Next is the next instant after now at which the verdict can change,
	// or an activity sample is wanted; zero if none.
	Next time.Time
	Open int  // tool calls open
	Done bool // the terminal event arrived
	// LastType and LastSubtype are the last line's envelope ("" for a
	// line that is not JSON, "start" before any line): what the agent is
	// doing, for a status line.
	LastType, LastSubtype string
}

// Decide returns the decision at now.
func (w *Watchdog) Decide(now time.Time) Decision {
	d := Decision{Open: len(w.calls.byID), Done: w.done, LastType: w.lastType, LastSubtype: w.lastSub}
	consider := func(t time.Time) {
		if t.After(now) && (d.Next.IsZero() || t.Before(d.Next)) {
			d.Next = t
		}
	}
	if w.done {
		due, _ := w.exitDue()
		if !now.Before(due) {
			d.Verdict = Overdue
		}
		consider(due)
		return d
	}
	at, kind := w.killAt()
	// A question is not warned of: the stop is seconds away, and the line
	// that says why it comes is the one that counts. (With no warn_before
	// the warning falls due at the hang, which the first case decides.)
	warn := kind != KindPerson
	switch {
	case !now.Before(at):
		d.Verdict = Hang
	case warn && !now.Before(at.Add(-w.th.WarnBefore)):
		d.Verdict = Warn
	case len(w.calls.byID) > 0:
		d.Verdict = Waiting
	}
	consider(at)
	if warn {
		consider(at.Add(-w.th.WarnBefore))
	}
	if look, ok := w.inputLookAt(); ok {
		consider(look)
	}
	if next, ok := w.nextSample(); ok {
		consider(next)
	}
	return d
}

// Check returns the verdict at now and the reason behind it.
func (w *Watchdog) Check(now time.Time) (Verdict, Reason) {
	v := w.Decide(now).Verdict
	if w.done {
		due, kind := w.exitDue()
		return v, w.reason(now, due, kind)
	}
	at, kind := w.killAt()
	return v, w.reason(now, at, kind)
}

// KindIdle and the other kinds say which rule a Reason is about.
const (
	KindIdle     = "idle"     // silence with no tool call open
	KindTool     = "tool"     // every open call past its deadline
	KindDeadline = "deadline" // the attempt's hard timeout
	KindExit     = "exit"     // answer complete, agent did not exit
	KindPerson   = "person"   // a question only a person can answer, and the agent waits for input
	KindBudget   = "budget"   // the agent reported more than a budget allows
)

// The budgets a KindBudget reason names, by their config keys.
const (
	BudgetTokens = "max_tokens"
	BudgetCost   = "max_cost_usd"
)

// MaxReasonCalls bounds the open calls a Reason lists (the longest
// running); OpenCount counts them all.
const MaxReasonCalls = 10

func (w *Watchdog) reason(now, due time.Time, kind string) Reason {
	r := Reason{
		Kind:          kind,
		Silence:       now.Sub(w.last),
		Elapsed:       now.Sub(w.start),
		LastEventType: stream.Event{Type: w.lastType, Subtype: w.lastSub, NotJSON: w.lastNotJSON}.Label(),
		OpenCount:     len(w.calls.byID),
		DueIn:         due.Sub(now),
		SessionID:     w.session,
		Evidence:      w.evidence,
	}
	w.connEvidence(&r.Evidence, now)
	switch kind {
	case KindIdle:
		r.Threshold = w.th.IdleTimeout
	case KindTool:
		r.Threshold, r.SilenceDue = w.th.IdleTimeout, now.Sub(w.idleDue())
	case KindDeadline:
		r.Threshold = w.th.HardTimeout
	case KindExit:
		r.Threshold = w.th.ExitGrace
	case KindPerson:
		q, _ := w.question()
		r.Threshold, r.Silence = AskWait, now.Sub(maxTime(w.ask.at, w.last))
		r.Question, r.Fix, r.WaitingOn = q.Quote, q.Fix, w.ask.input.waitingOn()
	case KindBudget:
		r.Budget, r.Limit, r.Total = w.OverBudget()
	}
	top := w.calls.oldest(MaxReasonCalls)
	r.OpenCalls = make([]OpenCall, len(top))
	for i, c := range top {
		b, _ := budget(c.Call, w.th)
		r.OpenCalls[i] = OpenCall{ID: c.ID, Kind: c.Kind, Command: c.Command, Elapsed: now.Sub(c.start), Timeout: c.Timeout, Budget: b}
	}
	return r
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
