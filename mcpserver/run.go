package mcpserver

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// States of a run, as wait_agent and agent_sessions report them.
const (
	stateQueued    = "queued"    // waiting for a slot ([mcp] max_concurrent)
	stateRunning   = "running"   // the agent runs
	stateFinished  = "finished"  // the agent gave its answer
	stateHung      = "hung"      // the watchdog stopped it: idle, a tool past its deadline, or hard_timeout
	stateFailed    = "failed"    // it could not start, or exited without an answer
	stateCancelled = "cancelled" // cancel_agent, the caller, or the server stopping
)

// Why a run's context ends, besides the server stopping.
var (
	errCallCancelled = errors.New("the run_agent call was cancelled")
	errCancelAgent   = errors.New("cancel_agent")
)

// A run is one agent run of the server, whichever tool started it:
// run_agent waits for it to end in the same call, start_agent leaves it
// to wait_agent. It belongs to the server, and ends with it.
type run struct {
	s       *Server
	id      string // unguessable: what wait_agent and cancel_agent take
	n       int64  // for the server's own log lines
	tool    string // run_agent or start_agent
	req     job.Request
	lim     job.Limits
	job     *job.Job
	arrived time.Time
	console *slog.Logger
	out     *capture
	stderr  *tail
	// session and logCtx send the run's warnings: logCtx has the values
	// of the request that started the run (its log level) and not its end.
	session *mcp.ServerSession
	logCtx  context.Context
	ctx     context.Context
	cancel  context.CancelCauseFunc
	wake    chan struct{} // to the warner: a warning is pending
	done    chan struct{} // closed once the run has ended and its tree is gone

	mu        sync.Mutex // guards what follows
	queued    bool
	started   bool
	status    *ptyproxy.Status // the latest snapshot, as the watchdog gave it
	verdict   watchdog.Verdict
	warning   *ptyproxy.Status // a warning not sent yet
	sessionID string
	news      journal
	changed   chan struct{} // closed and replaced at each change a waiter wants
	endedAt   time.Time
	final     *final // set when the run has ended
}

// newRunID returns an id nobody can guess: 128 bits from crypto/rand.
func newRunID() string {
	return "run_" + strings.ToLower(rand.Text())
}

// execute runs the agent: a slot first, then the job, then the result.
func (r *run) execute() {
	defer r.s.runs.Done()
	stopWarner := r.startWarner()
	leave, err := r.s.gate.enter(r.ctx, r.onQueued)
	if err != nil {
		stopWarner()
		r.console.Info("cancelled before the agent started")
		r.end(r.cancelledEarly())
		return
	}
	r.mu.Lock()
	r.started = true
	r.notifyLocked()
	r.mu.Unlock()
	r.console.Info(r.tool + ": starting " + r.job.Cmd.Profile.Name)
	res, err := r.job.Run(r.ctx)
	leave()
	stopWarner()
	for _, w := range res.Telemetry {
		r.console.Warn(w)
	}
	if err != nil {
		r.console.Warn("cannot start the agent: " + err.Error())
		f := failed(codeStart, kindStart, err.Error(), checkInstall)
		f.LogPath = res.LogPath
		r.end(r.failure(f))
		return
	}
	r.job.Logger().With("call", r.n).Info(r.tool + ": " + r.job.Cmd.Summary(res))
	r.end(r.result(res))
}

// end keeps the result, wakes the waiters and tells the server.
func (r *run) end(f *final) {
	r.mu.Lock()
	r.final, r.endedAt = f, time.Now()
	r.notifyLocked()
	r.mu.Unlock()
	close(r.done)
	r.s.reg.ended(r)
}

// onQueued notes that the run waits for a slot.
func (r *run) onQueued() {
	r.mu.Lock()
	r.queued = true
	r.notifyLocked()
	r.mu.Unlock()
}

// onStatus takes a snapshot from the agent's session loop. It must not
// block that loop: the warner does the sending.
func (r *run) onStatus(st ptyproxy.Status) {
	r.mu.Lock()
	warn := st.Verdict == watchdog.Warn && r.verdict != watchdog.Warn
	r.verdict, r.status = st.Verdict, &st
	r.mu.Unlock()
	var text string
	if warn {
		text = r.warningText(r.cleanReason(st.Reason))
	}
	r.mu.Lock()
	if warn {
		r.warning = &st
		r.news.add(note{warning: text})
	}
	r.notifyLocked()
	r.mu.Unlock()
	if warn {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// onEvent notes each line's event (Job.OnEvent): the phase, and the tool
// calls it opens and closes.
func (r *run) onEvent(ev stream.Event) {
	r.out.noteEvent(ev)
	if len(ev.Started) == 0 && len(ev.Ended) == 0 {
		return
	}
	now := time.Now()
	var started []toolNote
	for _, c := range ev.Started {
		started = append(started, toolNote{CallID: r.clean(c.ID, maxCommand), Kind: r.clean(c.Kind, maxCommand), Command: r.clean(c.Command, maxCommand)})
	}
	var ended []string
	for _, id := range ev.Ended {
		ended = append(ended, r.clean(id, maxCommand))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range started {
		r.news.started(t, now)
	}
	for _, id := range ended {
		r.news.ended(id, now)
	}
	r.notifyLocked()
}

// onSession notes the session id as soon as the agent names it.
func (r *run) onSession(id string) {
	r.mu.Lock()
	r.sessionID = id
	r.notifyLocked()
	r.mu.Unlock()
}

// notifyLocked wakes whoever waits on the run.
func (r *run) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// changes returns a channel closed at the next change.
func (r *run) changes() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// ended returns the result, nil while the run goes on.
func (r *run) ended() *final {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.final
}

// stateLocked says where the run is.
func (r *run) stateLocked() string {
	switch {
	case r.final != nil:
		return r.final.state
	case r.started:
		return stateRunning
	}
	return stateQueued
}

// logPath returns the run's session log, "" before it starts. It changes
// once, when the agent names its session.
func (r *run) logPath() string { return r.job.LogPath() }

// secrets is the run's redactor: its session log's.
func (r *run) secrets() *redact.Redactor { return r.job.Redactor() }

// mask masks the run's secrets as its session log does.
func (r *run) mask(s string) redact.Masked { return r.secrets().MaskString(s) }

// redact masks the run's secrets in text that goes on to be sealed or
// masked again, after it is cut or cleaned.
func (r *run) redact(s string) string { return r.mask(s).String() }

// Bounds on the agent's text in what the server sends.
const (
	maxCommand   = 500 // runes of a tool call's command
	maxOpenCalls = 20  // open calls listed in a reason
)

// clean makes text from the agent fit to send: its secrets masked before
// it is cut (a secret cut first would no longer be recognized), on one
// line, no control characters, at most max runes.
func (r *run) clean(s string, max int) string {
	return words.Cut(words.Display(r.redact(s)), max)
}

// cleanReason returns a watchdog reason fit to send: its open calls'
// commands cleaned, at most maxOpenCalls of them.
func (r *run) cleanReason(rs watchdog.Reason) sentReason {
	out := sentReason{Reason: rs, count: len(rs.OpenCalls)}
	out.OpenCalls = make([]watchdog.OpenCall, 0, min(len(rs.OpenCalls), maxOpenCalls))
	for _, c := range rs.OpenCalls[:min(len(rs.OpenCalls), maxOpenCalls)] {
		c.ID, c.Kind, c.Command = r.clean(c.ID, maxCommand), r.clean(c.Kind, maxCommand), r.clean(c.Command, maxCommand)
		out.OpenCalls = append(out.OpenCalls, c)
	}
	out.LastEventType = r.clean(rs.LastEventType, maxCommand)
	out.Question = r.clean(rs.Question, maxCommand)
	out.SessionID = r.clean(rs.SessionID, maxName)
	return out
}

// view returns what the run's progress says at this instant.
func (r *run) view() view {
	running, limit := r.s.gate.counts()
	r.mu.Lock()
	v := view{arrived: r.arrived, queued: r.queued, started: r.started, running: running, limit: limit, profile: r.job.Cmd.Profile}
	st := r.status
	r.mu.Unlock()
	if st != nil {
		clean := *st
		clean.Reason = r.cleanReason(st.Reason).Reason
		v.status = &clean
	}
	v.event, v.eventAt, v.output = r.out.latest()
	return v
}

// phase says in words where the run is at now, as progress does.
func (r *run) phase(now time.Time) string {
	if f := r.ended(); f != nil {
		return f.phase
	}
	_, text := describe(r.view(), now)
	if text == "" {
		text = "queued"
	}
	return words.Display(r.redact(text))
}

// cancelledEarly is the result of a run cancelled before its agent
// started.
func (r *run) cancelledEarly() *final {
	f := failed(codeCanceled, kindCancelled, r.cancelWhy()+" before its agent started.")
	f.Clamped = r.lim.Clamped
	return r.failure(f)
}

// cancelWhy says who cancelled the run.
func (r *run) cancelWhy() string {
	switch cause := context.Cause(r.ctx); {
	case errors.Is(cause, errCancelAgent):
		return "The run was cancelled by cancel_agent"
	case errors.Is(cause, errCallCancelled):
		return "The call was cancelled"
	}
	return "The MCP server is stopping"
}
