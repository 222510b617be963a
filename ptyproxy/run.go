package ptyproxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"slices"
	"syscall"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// MarkerEnv is set in the agent's environment to an id unique to the
// attempt, so its orphans can be told from another attempt's.
const MarkerEnv = "CURSOR_WRAP_ATTEMPT"

// Run runs one attempt to its end: the agent exited and was drained, and
// nothing it started is left. The error is for a failed start only
// (wrapping ErrNotFound or ErrNotExecutable where that is the cause);
// everything after is in the Outcome.
func Run(ctx context.Context, o Options) (Outcome, error) {
	if o.Tick <= 0 {
		o.Tick = 5 * time.Second
	}
	if o.Console == nil {
		o.Console = slog.New(slog.DiscardHandler)
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	marker := MarkerEnv + "=" + hex.EncodeToString(id[:])
	p, err := start(&o, append(slices.Clip(o.Env), marker))
	if err != nil {
		return Outcome{}, err
	}
	l := &loop{
		o:      o,
		p:      p,
		r:      newReader(p.master, o.Stdout),
		tree:   newTree(p.pid, marker),
		probe:  o.Thresholds.ActivityProbe && procAvailable(),
		timer:  time.NewTimer(time.Hour),
		stderr: make(chan []byte, 64),
	}
	l.kill = &killer{tree: l.tree, pgid: p.pid}
	l.cutLines()
	return l.run(ctx), nil
}

// loop is what runs one attempt: the one goroutine that reads the clock for
// decisions and touches the watchdog.
type loop struct {
	o     Options
	p     *proc
	r     *reader
	wd    *watchdog.Watchdog
	tree  *tree
	kill  *killer
	probe bool
	out   Outcome

	timer   *time.Timer
	verdict watchdog.Verdict
	phase   Phase
	last    time.Time // last output: while a batch is cut, its time

	lastStatus    time.Time
	shown         statusKey
	statusPending bool // a change not reported yet

	stopAt  time.Time    // SIGKILL due (while Stopping)
	poll    *time.Ticker // while Stopping or cleaning up
	stall   *time.Ticker // while the exited agent's output is drained
	exited  bool
	drained bool
	stderr  chan []byte
	events  []byte // a batch's event records, written at once
	answer  stream.Reply

	split *stream.Splitter
	join  *stream.Joiner // nil when only bytes are watched
}

func (l *loop) run(ctx context.Context) Outcome {
	now := time.Now()
	l.out.Started, l.last = now, now
	th := l.o.Thresholds
	th.ActivityProbe = l.probe
	l.wd = watchdog.New(th, now)
	go l.r.run()
	stderrDone, abandon := make(chan struct{}), make(chan struct{})
	go l.readStderr(stderrDone, abandon)
	l.o.Log.Write(sessionlog.Start{Pid: l.p.pid, Dir: l.o.Dir, TickMS: l.o.Tick.Milliseconds(), ActivityProbe: l.probe})
	l.decide(now)

	stderrOpen := true
	cancelled := ctx.Done()
	readerDone := l.r.done
	for !(l.exited && l.drained && l.phase == Exiting && l.poll == nil) {
		var pollC, stallC <-chan time.Time
		if l.poll != nil {
			pollC = l.poll.C
		}
		if l.stall != nil {
			stallC = l.stall.C
		}
		select {
		case b := <-l.r.batches:
			l.onBatch(b)
			l.r.free <- b
		case err := <-readerDone:
			// The reader sent its last batches before this; select may
			// have picked this first.
			l.takeBatches()
			l.endStream()
			l.setDrained()
			if err != nil {
				l.o.Log.Write(sessionlog.Warning{Message: "reading the pty: " + err.Error()})
			}
			l.afterExit()
		case now := <-stallC:
			if l.r.stalled(now, stdoutStall) {
				readerDone = nil
				l.giveUpStdout()
			}
		case st := <-l.p.exited:
			l.onExit(st)
		case line, ok := <-l.stderr:
			if !ok {
				l.stderr, stderrOpen = nil, false
				continue
			}
			l.onStderr(line)
		case <-l.timer.C:
			l.onTimer(time.Now())
		case <-pollC:
			l.onPoll(time.Now())
		case sig := <-l.o.Signals:
			l.onSignal(sig)
		case rl := <-l.o.Reload:
			l.onReload(rl)
		case size := <-l.o.Resize:
			if err := l.p.resize(size); err != nil {
				l.o.Log.Write(sessionlog.Warning{Message: "resize pty: " + err.Error()})
			}
		case <-cancelled:
			cancelled = nil // Closed for good: take it once.
			l.out.Cause = Cancelled
			l.stopNow()
		}
	}
	l.timer.Stop()
	// Everything that held stderr is gone; what is left in the pipe is
	// read, then the read gives up rather than wait on a stranger. A
	// wrapper's stderr that takes nothing must not keep the attempt open:
	// the copy is abandoned after stderrWait. abandon is closed, not sent
	// on, so that both waits below see it.
	_ = l.p.stderr.SetReadDeadline(time.Now().Add(drainQuiet))
	defer time.AfterFunc(stderrWait, func() { close(abandon) }).Stop()
	for stderrOpen {
		select {
		case line, ok := <-l.stderr:
			if !ok {
				stderrOpen = false
				continue
			}
			l.onStderr(line)
		case <-abandon:
			stderrOpen = false
		}
	}
	select {
	case <-stderrDone:
	case <-abandon:
	}
	if err := l.r.stdoutErr(); err != nil && l.out.StdoutErr == nil {
		// Stdout failed while the agent's last output was drained.
		l.out.StdoutErr = err
		if l.out.Cause == Exited {
			l.out.Cause = Downstream
		}
	}
	l.tree.done()
	// What died last may not have been reaped yet; nothing is left a zombie.
	reapOrphans()
	l.p.closeAll()
	l.out.Ended = time.Now()
	l.out.SessionID = l.wd.SessionID()
	l.out.Done = l.wd.Done()
	l.out.Answer = l.answer.String()
	return l.out
}

// endSilence counts the silence that ends at t (output, or the attempt
// being stopped) towards the longest one.
func (l *loop) endSilence(t time.Time) {
	if l.phase != Running {
		return
	}
	if gap := t.Sub(l.last); gap > l.out.LongestSilence {
		_, r := l.wd.Check(l.last)
		l.out.LongestSilence, l.out.SilenceOpen = gap, r.OpenCalls
	}
}

// decide asks the watchdog once for its decision at now and acts on it:
// it stops the agent on a hang or an overdue exit, else sets the one timer
// to the next deadline (or the tick, if that comes first).
func (l *loop) decide(now time.Time) {
	d := l.wd.Decide(now)
	r := l.noteVerdict(now, d)
	if d.Verdict == watchdog.Hang || d.Verdict == watchdog.Overdue {
		if l.agentExiting() {
			// The agent is exiting as the deadline falls: its exit decides.
			l.timer.Reset(pollEvery)
			return
		}
		l.act(d.Verdict, r)
		return
	}
	l.report(now, d, false)
	at := now.Add(l.o.Tick)
	if !d.Next.IsZero() && d.Next.Before(at) {
		at = d.Next
	}
	if due := l.lastStatus.Add(statusMin); l.statusPending && due.Before(at) {
		at = due
	}
	l.timer.Reset(at.Sub(time.Now()))
}

// report hands a status snapshot to OnStatus: when what it shows changed
// (calls opened or closed, the verdict, the phase, the kind of event the
// agent last wrote), at most every statusMin, a change it holds back
// sent by the timer; otherwise at most every statusEvery.
func (l *loop) report(now time.Time, d watchdog.Decision, force bool) {
	if l.o.OnStatus == nil {
		return
	}
	shown := statusKey{d.Open, d.Verdict, l.phase, d.Done, d.LastType, d.LastSubtype}
	changed := shown != l.shown
	if !force {
		wait := statusEvery
		if changed {
			wait = statusMin
		}
		if now.Sub(l.lastStatus) < wait {
			l.statusPending = l.statusPending || changed
			return
		}
	}
	l.lastStatus, l.shown, l.statusPending = now, shown, false
	_, r := l.wd.Check(now)
	l.o.OnStatus(Status{Now: now, Started: l.out.Started, Verdict: d.Verdict, Reason: r, Phase: l.phase})
}

// statusKey is what makes a status snapshot worth sending soon.
type statusKey struct {
	open              int
	verdict           watchdog.Verdict
	phase             Phase
	done              bool
	lastType, lastSub string
}

// stdoutStall is how long a stdout that takes none of the agent's last
// output is waited for, once the agent has exited.
const stdoutStall = 10 * time.Second

// stderrWait bounds how long the end of an attempt waits for the agent's
// last stderr to be passed on.
const stderrWait = time.Second

// statusEvery bounds how often OnStatus is called when nothing it shows
// changed, statusMin when something did.
const (
	statusEvery = 250 * time.Millisecond
	statusMin   = 50 * time.Millisecond
)

func (l *loop) onTimer(now time.Time) {
	// Output or an exit that is already queued counts before any verdict.
	l.catchUp()
	if l.phase != Running || l.exited {
		return
	}
	l.tree.observe(now)
	if l.probe && l.wd.WantsActivity(now) {
		l.wd.ObserveActivity(l.tree.activity(), now)
	}
	if l.r.writeBlocked(now) {
		// Our stdout is not taking bytes; the agent is blocked on us.
		l.wd.Output(now)
	}
	l.decide(now)
}

// act stops the agent on a hang or an overdue exit: signals first, words
// after, so neither the log nor the console can delay the kill.
func (l *loop) act(v watchdog.Verdict, r watchdog.Reason) {
	cause := Hung
	if v == watchdog.Overdue {
		cause = Overdue
	}
	r.StdinOpen = l.p.stdinOpen.Load()
	l.out.Cause, l.out.Reason = cause, r
	var why sessionlog.Record = sessionlog.HangDetected{Reason: r}
	if cause == Overdue {
		why = sessionlog.ExitOverdue{Reason: r}
	}
	l.stop(syscall.SIGTERM, why)
	if cause == Hung {
		l.o.Console.Error("hang detected: " + r.Describe() + "; stopping the agent's process group")
	} else {
		l.o.Console.Info("the agent finished its answer but did not exit in time (" + r.Describe() + "); stopping it")
	}
}

// noteVerdict logs a change of verdict, and warns once when a hang comes
// near. It returns the reason when the verdict is worth one (a change, a
// hang, an overdue exit): only then is it built.
func (l *loop) noteVerdict(now time.Time, d watchdog.Decision) watchdog.Reason {
	v := d.Verdict
	if v == l.verdict && v != watchdog.Hang && v != watchdog.Overdue {
		return watchdog.Reason{}
	}
	_, r := l.wd.Check(now)
	if v == l.verdict {
		return r
	}
	l.o.Log.Write(sessionlog.VerdictChange{From: l.verdict.String(), To: v.String(), Reason: r})
	l.verdict = v
	if v == watchdog.Warn {
		l.o.Log.Write(sessionlog.Warning{Message: "hang imminent", InMS: r.DueIn.Milliseconds(), Reason: &r})
		l.o.Console.Warn(r.Imminent())
	}
	return r
}

// catchUp handles the output batches and the exit that are already queued.
func (l *loop) catchUp() {
	l.takeBatches()
	select {
	case st := <-l.p.exited:
		l.onExit(st)
	default:
	}
}

// takeBatches handles the output batches already queued.
func (l *loop) takeBatches() {
	for {
		select {
		case b := <-l.r.batches:
			l.onBatch(b)
			l.r.free <- b
		default:
			return
		}
	}
}

// agentExiting reports whether the agent has exited but is not reaped yet.
func (l *loop) agentExiting() bool {
	return exited(l.p.pid)
}

// onReload applies new thresholds to the running attempt: deadlines are
// recomputed from them at once, and a hang they make due is declared now.
func (l *loop) onReload(rl Reload) {
	if rl.Err != nil {
		l.o.Log.Write(sessionlog.ConfigError{Error: rl.Err.Error()})
		return
	}
	l.probe = rl.Thresholds.ActivityProbe && procAvailable()
	th := rl.Thresholds
	th.ActivityProbe = l.probe
	l.wd.SetThresholds(th)
	if rl.Tick > 0 {
		l.o.Tick = rl.Tick
	}
	if rl.KillGrace > 0 {
		l.o.KillGrace = rl.KillGrace
	}
	l.o.Log.Write(sessionlog.ConfigReloaded{Changed: rl.Changes, Pinned: rl.Pinned})
	if l.phase == Running {
		l.onTimer(time.Now())
	}
}

// onStderr logs a line of the agent's stderr, and an error it states.
func (l *loop) onStderr(line []byte) {
	l.o.Log.Write(sessionlog.Stderr{Line: string(line)})
	if l.o.StderrError != nil {
		if e := l.o.StderrError(line); e != nil {
			l.agentError(e, "stderr")
		}
	}
}

// agentError notes the first error the agent states (a second one, often
// the same said again, is in the log as the agent wrote it).
func (l *loop) agentError(e *stream.AgentError, source string) {
	if l.out.AgentError != nil {
		return
	}
	l.out.AgentError = e
	retry, _ := e.Wait(time.Now())
	l.o.Log.Write(sessionlog.AgentErrorRecord{Kind: string(e.Kind), Message: e.Message, Source: source, Restart: e.Restart, RetryAfterMS: retry.Milliseconds()})
	l.o.Console.Error("the agent cannot go on (" + string(e.Kind) + "): " + e.Message)
}

// readStderr passes the agent's stderr on as it arrives and hands each line
// to the loop for the log, until the loop abandons it.
func (l *loop) readStderr(done chan<- struct{}, abandon <-chan struct{}) {
	defer close(done)
	defer close(l.stderr)
	split := stream.NewSplitter(64<<10, func(ln stream.Line) {
		select {
		case l.stderr <- append([]byte(nil), ln.Text...):
		case <-abandon: // The loop reads no more: the line is not logged.
		}
	})
	buf := make([]byte, 32<<10)
	for {
		n, err := l.p.stderr.Read(buf)
		if n > 0 {
			_, _ = l.o.Stderr.Write(buf[:n]) // Our stderr failing must not stop the agent.
			split.Write(buf[:n])
		}
		if err != nil {
			split.Flush()
			return
		}
	}
}
