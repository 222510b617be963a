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
// (wrapping reaper.ErrNotFound or reaper.ErrNotExecutable where that is the cause);
// everything after is in the Outcome.
func Run(ctx context.Context, o Options) (Outcome, error) {
	clock := o.Clock
	if clock == nil {
		clock = systemClock{}
	}
	return run(ctx, o, clock)
}

// run is Run on the clock given.
func run(ctx context.Context, o Options, clock Clock) (Outcome, error) {
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
		clock:  clock,
		r:      newReader(p.master, o.Stdout, clock),
		tree:   newTree(p.pid, marker, o.Runtime),
		probe:  o.Thresholds.ActivityProbe && procAvailable(),
		end:    ending{keepOrphans: o.KeepOrphans},
		stderr: make(chan stderrText, 64),
		input:  newInputs(p),
		errs:   errCopy{began: make(chan struct{}, 1)},
	}
	l.kill = &killer{tree: l.tree, pgid: p.pid}
	l.cutLines()
	return l.run(ctx), nil
}

// loop is what runs one attempt: the one goroutine that touches the
// watchdog and the ending, and reads the clock for them, once per wake-up.
type loop struct {
	o     Options
	p     *proc
	clock Clock
	r     *reader
	wd    *watchdog.Watchdog
	tree  *tree
	kill  *killer
	probe bool
	conns bool // the agent's connections can be read
	out   Outcome
	seen  seenEvidence // the connection evidence last logged

	timer   Timer // the watchdog's next deadline, while Running
	verdict watchdog.Verdict
	last    time.Time // last output: while a batch is cut, its time

	lastStatus    time.Time
	shown         statusKey
	statusPending bool // a change not reported yet

	end      ending
	endTimer Timer        // when the ending is asked again
	readDone <-chan error // the reader's end; nil once taken or given up on
	exited   bool
	drained  bool
	stderr   chan stderrText // nil once closed
	errs     errCopy         // shared with the copy of stderr (stderr.go)
	events   []byte          // a batch's event records, written at once
	answer   stream.Reply

	// The last of what the agent wrote that is not its stream (asked.go),
	// and the words of one of them with its unfinished line.
	said, errSaid, errPending, words []byte
	errAt                            time.Time // when the last of stderr was read
	saidAt                           time.Time // when the last text on its terminal was read
	wroteAt                          time.Time // when the last of its output was read
	input                            *inputs   // what it waits to read, from the kernel
	inputUnknown                     bool      // the kernel could not say, and the log says so

	split *stream.Splitter
	join  *stream.Joiner // nil when only bytes are watched
}

func (l *loop) run(ctx context.Context) Outcome {
	now := l.clock.Now()
	l.out.Started, l.last = now, now
	var why string
	l.conns, why = connsVisible(l.p.pid)
	l.wd = watchdog.New(l.thresholds(l.o.Thresholds), now)
	l.wd.SpentBefore(l.o.Spent)
	l.timer, l.endTimer = l.clock.NewTimer(), l.clock.NewTimer()
	go l.r.run()
	stderrDone, abandon := make(chan struct{}), make(chan struct{})
	go l.readStderr(l.stderr, stderrDone, abandon)
	l.o.Log.Write(sessionlog.Start{Pid: l.p.pid, Dir: l.o.Dir, TickMS: l.o.Tick.Milliseconds(), ActivityProbe: l.probe})
	if why != "" && l.probe {
		// Said once, at the start: every silence is judged without them.
		l.o.Log.Write(sessionlog.Warning{Message: "the kernel does not tell the agent's connections: " + why +
			"; a model that thinks in silence is judged by idle_timeout alone"})
	}
	l.decide(now, now)

	cancelled := ctx.Done()
	l.readDone = l.r.done
	// Each case reads the clock once, as it wakes, and passes that on.
	for l.end.phase != Exiting {
		select {
		case b := <-l.r.batches:
			l.onBatch(b, l.clock.Now())
			l.r.free <- b
		case err := <-l.readDone:
			l.onDrained(err, l.clock.Now())
		case st := <-l.p.exited:
			l.onExit(st, l.clock.Now())
		case line, ok := <-l.stderr:
			if !ok {
				l.stderr = nil
				continue
			}
			l.onStderr(line, l.clock.Now())
		case <-l.timer.C():
			l.onTimer(l.clock.Now())
		case <-l.endTimer.C():
			l.settle(l.clock.Now())
		case sig := <-l.o.Signals:
			l.onSignal(sig, l.clock.Now())
		case sig := <-l.o.Stops:
			l.onJobStop(sig, l.clock.Now())
		case rl := <-l.o.Reload:
			l.onReload(rl, l.clock.Now())
		case size := <-l.o.Resize:
			if err := l.p.resize(size); err != nil {
				l.o.Log.Write(sessionlog.Warning{Message: "resize pty: " + err.Error()})
			}
		case <-cancelled:
			cancelled = nil // Closed for good: take it once.
			l.out.Cause = Cancelled
			l.stopNow(l.clock.Now())
		}
	}
	l.timer.Stop()
	l.endTimer.Stop()
	// The end of the loop: the last of stderr is waited for from here.
	l.lastStderr(stderrDone, abandon)
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
	// The attempt's end, once all of it is gone: the last read of the clock.
	l.out.Ended = l.clock.Now()
	l.out.SessionID = l.wd.SessionID()
	l.out.Done = l.wd.Done()
	l.out.Answer = l.answer.String()
	if u, reported := l.wd.Usage(); reported {
		l.out.Usage = &u
	}
	l.leftAsking()
	return l.out
}

// onDrained handles the end of the agent's output. The reader sent its
// last batches before it said so; select may have picked this first.
func (l *loop) onDrained(err error, now time.Time) {
	l.readDone = nil
	l.takeBatches(now)
	l.endStream(now)
	l.drained = true
	if err != nil {
		l.o.Log.Write(sessionlog.Warning{Message: "reading the pty: " + err.Error()})
	}
	l.settle(now)
}

// endSilence counts the silence that ends at t (output, or the attempt
// being stopped) towards the longest one.
func (l *loop) endSilence(t time.Time) {
	if l.end.phase != Running {
		return
	}
	if gap := t.Sub(l.last); gap > l.out.LongestSilence {
		_, r := l.wd.Check(l.last)
		l.out.LongestSilence, l.out.SilenceOpen = gap, r.OpenCalls
	}
}

// decide asks the watchdog once for its decision at t (a batch's time, or
// now) and acts on it: it stops the agent on a hang or an overdue exit,
// else sets the one timer to the next deadline (or the tick, if that
// comes first).
func (l *loop) decide(t, now time.Time) {
	d := l.wd.Decide(t)
	r := l.noteVerdict(t, d)
	if d.Verdict == watchdog.Hang || d.Verdict == watchdog.Overdue {
		if l.agentExiting() {
			// The agent is exiting as the deadline falls: its exit decides.
			l.timer.Reset(now.Add(pollEvery))
			return
		}
		l.act(d.Verdict, r, now)
		return
	}
	l.report(t, d, false)
	at := t.Add(l.o.Tick)
	if !d.Next.IsZero() && d.Next.Before(at) {
		at = d.Next
	}
	if due := l.lastStatus.Add(statusMin); l.statusPending && due.Before(at) {
		at = due
	}
	l.timer.Reset(at)
}

// report hands a status snapshot to OnStatus: when what it shows changed
// (calls opened or closed, the verdict, the phase, the kind of event the
// agent last wrote), at most every statusMin, a change it holds back
// sent by the timer; otherwise at most every statusEvery.
func (l *loop) report(now time.Time, d watchdog.Decision, force bool) {
	if l.o.OnStatus == nil {
		return
	}
	shown := statusKey{d.Open, d.Verdict, l.end.phase, d.Done, d.LastType, d.LastSubtype}
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
	l.o.OnStatus(Status{Now: now, Started: l.out.Started, Verdict: d.Verdict, Reason: r, Phase: l.end.phase})
}

// statusKey is what makes a status snapshot worth sending soon.
type statusKey struct {
	open              int
	verdict           watchdog.Verdict
	phase             Phase
	done              bool
	lastType, lastSub string
}

// statusEvery bounds how often OnStatus is called when nothing it shows
// changed, statusMin when something did.
const (
	statusEvery = 250 * time.Millisecond
	statusMin   = 50 * time.Millisecond
)

func (l *loop) onTimer(now time.Time) {
	// Output or an exit that is already queued counts before any verdict.
	l.catchUp(now)
	if l.end.phase != Running || l.exited {
		return
	}
	if l.probe && l.wd.WantsActivity(now) {
		// One walk of the tree: the sample is a look too.
		l.wd.ObserveActivity(l.tree.activity(now), now)
		l.noteEvidence(now)
	} else {
		l.tree.observe(now)
	}
	if l.wd.WantsInput(now) {
		l.lookInput(now)
	}
	if l.r.writeBlocked(now) {
		// Our stdout is not taking bytes; the agent is blocked on us.
		l.wd.Output(now)
	}
	l.decide(now, now)
}

// act stops the agent on a hang or an overdue exit: signals first, words
// after, so neither the log nor the console can delay the kill.
func (l *loop) act(v watchdog.Verdict, r watchdog.Reason, now time.Time) {
	cause := Hung
	switch {
	case v == watchdog.Overdue:
		cause = Overdue
	case r.Kind == watchdog.KindPerson:
		cause = AwaitingPerson
		l.out.Question = &stream.Question{Quote: r.Question, Fix: r.Fix}
	case r.Kind == watchdog.KindBudget:
		cause = OverBudget
	}
	r.StdinOpen = l.p.stdinOpen.Load()
	l.out.Cause, l.out.Reason = cause, r
	var why sessionlog.Record = sessionlog.HangDetected{Reason: r}
	if cause == Overdue {
		why = sessionlog.ExitOverdue{Reason: r}
	}
	l.stop(now, syscall.SIGTERM, why)
	switch cause {
	case Hung:
		if r.Kind == watchdog.KindDeadline {
			// A cap, not a hang: the agent may have been working.
			l.o.Console.Error(r.Describe() + "; stopping the agent's process group")
			break
		}
		l.o.Console.Error("hang detected: " + r.Describe() + "; stopping the agent's process group")
	case AwaitingPerson:
		l.o.Console.Error(r.Describe() + "; stopping the agent")
	case OverBudget:
		l.o.Console.Error("over budget: " + r.Describe() + "; stopping the agent's process group")
	default:
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
func (l *loop) catchUp(now time.Time) {
	l.takeBatches(now)
	select {
	case st := <-l.p.exited:
		l.onExit(st, now)
	default:
	}
}

// takeBatches handles the output batches already queued.
func (l *loop) takeBatches(now time.Time) {
	for {
		select {
		case b := <-l.r.batches:
			l.onBatch(b, now)
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

// onStderr logs a line of the agent's stderr and an error it states, and
// listens for a question in it, or in the start of a line its writer
// paused after, as a prompt does.
func (l *loop) onStderr(st stderrText, now time.Time) {
	line := st.text
	l.errAt = st.at
	if !st.whole {
		l.errPending = append(l.errPending[:0], stream.Tail(line)...)
		l.listen(st.at)
		return
	}
	l.errPending = l.errPending[:0]
	heard(&l.errSaid, line)
	l.listen(st.at)
	l.o.Log.Write(sessionlog.Stderr{Line: string(line)})
	if l.o.StderrError != nil {
		if e := l.o.StderrError(line); e != nil {
			l.agentError(e, "stderr", now)
		}
	}
}

// agentError notes the first error the agent states, at the time it came
// (a second one, often the same said again, is in the log as the agent
// wrote it).
func (l *loop) agentError(e *stream.AgentError, source string, at time.Time) {
	if l.out.AgentError != nil {
		return
	}
	l.out.AgentError = e
	retry, _ := e.Wait(at)
	l.o.Log.Write(sessionlog.AgentErrorRecord{Kind: string(e.Kind), Message: e.Message, Source: source, Restart: e.Restart, RetryAfterMS: retry.Milliseconds()})
	l.o.Console.Error("the agent cannot go on (" + string(e.Kind) + "): " + e.Message)
}
