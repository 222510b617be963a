package ptyproxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
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
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
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
	s := &session{
		o:      o,
		p:      p,
		r:      newReader(p.master, o.Stdout, o.Parse),
		tree:   newTree(p.pid, marker, o.ClaimAllOrphans),
		probe:  o.Thresholds.ActivityProbe && procAvailable(),
		timer:  time.NewTimer(time.Hour),
		stderr: make(chan []byte, 64),
	}
	s.kill = &killer{tree: s.tree, pgid: p.pid}
	return s.run(ctx), nil
}

// session is the loop of one attempt. Only its goroutine reads the clock
// for decisions and touches the watchdog.
type session struct {
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
	last    time.Time // last output

	lastStatus time.Time
	shown      statusKey

	stopAt  time.Time    // SIGKILL due (while Stopping)
	poll    *time.Ticker // while Stopping or cleaning up
	exited  bool
	drained bool
	stderr  chan []byte
	events  []byte // a batch's event records, written at once
}

func (s *session) run(ctx context.Context) Outcome {
	now := time.Now()
	s.out.Started, s.last = now, now
	th := s.o.Thresholds
	th.ActivityProbe = s.probe
	s.wd = watchdog.New(th, now)
	go s.r.run()
	stderrDone := make(chan struct{})
	go s.readStderr(stderrDone)
	s.o.Log.Info("start", "pid", s.p.pid, "dir", s.o.Dir, "tick_ms", s.o.Tick.Milliseconds(), "activity_probe", s.probe)
	s.arm(now)

	stderrOpen := true
	cancelled := ctx.Done()
	for !(s.exited && s.drained && s.phase == Exiting && s.poll == nil) {
		var pollC <-chan time.Time
		if s.poll != nil {
			pollC = s.poll.C
		}
		select {
		case b := <-s.r.batches:
			s.onBatch(b)
			s.r.free <- b
		case err := <-s.r.done:
			// The reader sent its last batches before this; select may
			// have picked this first.
			s.takeBatches()
			s.drained = true
			if err != nil {
				s.o.Log.Warn("warning", "message", "reading the pty: "+err.Error())
			}
			s.out.MidLine = s.r.midLine.Load()
			s.afterExit()
		case st := <-s.p.exited:
			s.onExit(st)
		case line, ok := <-s.stderr:
			if !ok {
				s.stderr, stderrOpen = nil, false
				continue
			}
			s.o.Log.Info("stderr", "line", string(line))
		case <-s.timer.C:
			s.onTimer(time.Now())
		case <-pollC:
			s.onPoll(time.Now())
		case sig := <-s.o.Signals:
			s.onSignal(sig)
		case rl := <-s.o.Reload:
			s.onReload(rl)
		case size := <-s.o.Resize:
			if err := s.p.resize(size); err != nil {
				s.o.Log.Warn("warning", "message", "resize pty: "+err.Error())
			}
		case <-cancelled:
			cancelled = nil // Closed for good: take it once.
			s.out.Cause = Cancelled
			s.stopNow()
		}
	}
	s.timer.Stop()
	// Everything that held stderr is gone; what is left in the pipe is
	// read, then the read gives up rather than wait on a stranger.
	_ = s.p.stderr.SetReadDeadline(time.Now().Add(drainQuiet))
	for stderrOpen {
		line, ok := <-s.stderr
		if !ok {
			break
		}
		s.o.Log.Info("stderr", "line", string(line))
	}
	<-stderrDone
	// What died last may not have been reaped yet; nothing is left a zombie.
	reapOrphans()
	s.p.closeAll()
	s.out.Ended = time.Now()
	s.out.SessionID = s.wd.SessionID()
	s.out.Done = s.wd.Done()
	return s.out
}

// endSilence counts the silence that ends at t (output, or the attempt
// being stopped) towards the longest one.
func (s *session) endSilence(t time.Time) {
	if s.phase != Running {
		return
	}
	if gap := t.Sub(s.last); gap > s.out.LongestSilence {
		_, r := s.wd.Check(s.last)
		s.out.LongestSilence, s.out.SilenceOpen = gap, r.OpenCalls
	}
}

// onBatch logs and feeds one read's worth of output.
func (s *session) onBatch(b *batch) {
	s.endSilence(b.at)
	s.last = b.at
	// Bytes of a line still arriving prove the stream alive too.
	s.wd.Output(b.at)
	s.tree.observe(b.at)
	for _, l := range b.lines {
		s.out.Lines++
		text := b.text(l)
		if s.o.Parse == nil {
			s.logEvent(b.at, l, text)
			continue
		}
		ev := l.ev
		had := s.wd.SessionID()
		notice := s.wd.ProcessEvent(ev, b.at)
		s.out.ToolCalls += len(ev.Started)
		s.logEvent(b.at, l, text)
		if id := s.wd.SessionID(); id != had && s.o.OnSession != nil {
			s.o.OnSession(id)
		}
		if notice != watchdog.NoNotice {
			s.flushEvents()
		}
		switch notice {
		case watchdog.UnknownCall:
			s.o.Log.Warn("warning", "message", "a tool call ended that was not open", "call_id", ev.CallID)
		case watchdog.DuplicateCall:
			s.o.Log.Warn("warning", "message", "a tool call started twice; its first start counts", "call_id", ev.CallID)
		}
	}
	s.flushEvents()
	if s.phase == Running {
		// The hard deadline can pass while output flows: the batch that
		// sees it acts, since the timer is re-armed past it.
		if v, r := s.noteVerdict(b.at); v == watchdog.Hang || v == watchdog.Overdue {
			s.act(v, r)
			return
		}
	}
	if err := s.r.stdoutErr(); err != nil && s.phase == Running {
		s.out.Cause = Downstream
		s.o.Log.Warn("downstream_closed", "error", err.Error())
		s.o.Console.Warn("stdout was closed by its reader; stopping the agent", "error", err.Error())
		s.stop(syscall.SIGTERM)
		return
	}
	if s.phase == Running {
		s.arm(b.at)
	}
}

// logEvent adds a line's event record to the batch's records.
func (s *session) logEvent(at time.Time, l line, text []byte) {
	if s.o.Events == nil {
		return
	}
	ev := l.ev
	s.events = sessionlog.AppendEvent(s.events, sessionlog.Event{
		Time: at, RecvTS: at.UnixMilli(), AgentTS: ev.AgentTS,
		Type: ev.Type, Subtype: ev.Subtype, CallID: ev.CallID, Raw: text,
		ParseError: ev.NotJSON, Truncated: ev.Truncated, Len: l.len, Partial: !l.newline,
	})
}

// flushEvents writes the event records gathered so far in one write, as
// they must come before any other record the batch leads to.
func (s *session) flushEvents() {
	if len(s.events) > 0 {
		_, _ = s.o.Events.Write(s.events) // The log reports its own failures.
		s.events = s.events[:0]
	}
}

// arm sets the one timer to the watchdog's next deadline, or the tick if
// that comes first.
func (s *session) arm(now time.Time) {
	at := now.Add(s.o.Tick)
	if next := s.wd.NextDeadline(now); !next.IsZero() && next.Before(at) {
		at = next
	}
	s.timer.Reset(at.Sub(time.Now()))
	s.report(now, false)
}

// report hands a status snapshot to OnStatus when what it shows changed
// (calls opened or closed, the verdict, the phase), and otherwise at most
// every statusEvery.
func (s *session) report(now time.Time, force bool) {
	if s.o.OnStatus == nil {
		return
	}
	shown := statusKey{s.wd.OpenCalls(), s.verdict, s.phase, s.wd.Done()}
	if !force && shown == s.shown && now.Sub(s.lastStatus) < statusEvery {
		return
	}
	s.lastStatus, s.shown = now, shown
	v, r := s.wd.Check(now)
	s.o.OnStatus(Status{Now: now, Started: s.out.Started, Verdict: v, Reason: r, Phase: s.phase})
}

// statusKey is what makes a status snapshot worth sending at once.
type statusKey struct {
	open    int
	verdict watchdog.Verdict
	phase   Phase
	done    bool
}

// statusEvery bounds how often OnStatus is called.
const statusEvery = 250 * time.Millisecond

func (s *session) onTimer(now time.Time) {
	// Output or an exit that is already queued counts before any verdict.
	s.catchUp()
	if s.phase != Running || s.exited {
		return
	}
	s.tree.observe(now)
	if s.probe && s.wd.WantsActivity(now) {
		s.wd.ObserveActivity(s.tree.activity(), now)
	}
	if s.r.writeBlocked(now) {
		// Our stdout is not taking bytes; the agent is blocked on us.
		s.wd.Output(now)
	}
	v, r := s.noteVerdict(now)
	if (v == watchdog.Hang || v == watchdog.Overdue) && s.agentExiting() {
		// The agent is exiting as the deadline falls: its exit decides.
		s.timer.Reset(pollEvery)
		return
	}
	if v == watchdog.Hang || v == watchdog.Overdue {
		s.act(v, r)
		return
	}
	s.arm(now)
}

// act stops the agent on a hang or an overdue exit.
func (s *session) act(v watchdog.Verdict, r watchdog.Reason) {
	if v == watchdog.Hang {
		s.out.Cause, s.out.Reason = Hung, r
		s.o.Log.Error("hang_detected", "reason", r)
		s.o.Console.Error("hang detected: " + r.Describe() + "; stopping the agent's process group")
	} else {
		s.out.Cause, s.out.Reason = Overdue, r
		s.o.Log.Warn("exit_overdue", "reason", r)
		s.o.Console.Info("the agent finished its answer but did not exit within " + watchdog.Round(r.Threshold) + "; stopping it")
	}
	s.stop(syscall.SIGTERM)
}

// noteVerdict logs a change of verdict, and warns once when a hang comes
// near; the reason is built only on a change.
func (s *session) noteVerdict(now time.Time) (watchdog.Verdict, watchdog.Reason) {
	v := s.wd.Verdict(now)
	if v == s.verdict && v != watchdog.Hang && v != watchdog.Overdue {
		return v, watchdog.Reason{}
	}
	_, r := s.wd.Check(now)
	if v == s.verdict {
		return v, r
	}
	s.o.Log.Info("verdict", "from", s.verdict.String(), "to", v.String(), "reason", r)
	s.verdict = v
	if v == watchdog.Warn {
		s.o.Log.Warn("warning", "message", "hang imminent", "in_ms", r.DueIn.Milliseconds(), "reason", r)
		s.o.Console.Warn("no output for " + watchdog.Round(r.Silence) + "; the agent will be stopped in " + watchdog.Round(r.DueIn) + " unless it speaks")
	}
	return v, r
}

// catchUp handles the output batches and the exit that are already queued.
func (s *session) catchUp() {
	s.takeBatches()
	select {
	case st := <-s.p.exited:
		s.onExit(st)
	default:
	}
}

// takeBatches handles the output batches already queued.
func (s *session) takeBatches() {
	for {
		select {
		case b := <-s.r.batches:
			s.onBatch(b)
			s.r.free <- b
		default:
			return
		}
	}
}

// agentExiting reports whether the agent has exited but is not reaped yet.
func (s *session) agentExiting() bool {
	return exited(s.p.pid)
}

// onReload applies new thresholds to the running attempt: deadlines are
// recomputed from them at once, and a hang they make due is declared now.
func (s *session) onReload(rl Reload) {
	if rl.Err != nil {
		s.o.Log.Warn("config_error", "error", rl.Err.Error())
		return
	}
	s.probe = rl.Thresholds.ActivityProbe && procAvailable()
	th := rl.Thresholds
	th.ActivityProbe = s.probe
	s.wd.SetThresholds(th)
	if rl.Tick > 0 {
		s.o.Tick = rl.Tick
	}
	if rl.KillGrace > 0 {
		s.o.KillGrace = rl.KillGrace
	}
	s.o.Log.Info("config_reloaded", "changed", rl.Changes, "pinned", rl.Pinned)
	if s.phase == Running {
		s.onTimer(time.Now())
	}
}

func (s *session) onSignal(sig os.Signal) {
	if s.phase == Running {
		s.out.Cause, s.out.Signal = Interrupted, sig
		s.o.Console.Warn("got " + sig.String() + "; passing it to the agent")
		if ss, ok := sig.(syscall.Signal); ok {
			s.stop(ss)
			return
		}
		s.stop(syscall.SIGTERM)
		return
	}
	// A second signal does not wait for the grace.
	s.o.Console.Warn("got " + sig.String() + " again; killing the agent now")
	s.stopNow()
}

// stop begins the staged kill: SIGCONT and sig to the group and to the
// processes that left it, then SIGKILL after the kill grace unless the
// tree is gone by then.
func (s *session) stop(sig syscall.Signal) {
	s.endSilence(time.Now())
	s.phase = Stopping
	s.timer.Stop()
	s.signal(syscall.SIGCONT)
	s.signal(sig)
	s.stopAt = time.Now().Add(s.o.KillGrace)
	s.startPoll()
	s.report(time.Now(), true)
}

// stopNow skips the grace.
func (s *session) stopNow() {
	s.endSilence(time.Now())
	if s.phase == Running {
		s.phase = Stopping
		s.timer.Stop()
	}
	s.stopAt = time.Now()
	s.startPoll()
	s.onPoll(time.Now())
}

func (s *session) signal(sig syscall.Signal) {
	if sent := s.kill.signal(sig); len(sent) > 0 {
		s.o.Log.Info("kill", "signal", sigName(sig), "pids", sent)
	}
}

// pollEvery paces the checks that the tree is gone while stopping.
const pollEvery = 10 * time.Millisecond

func (s *session) startPoll() {
	if s.poll == nil {
		s.poll = time.NewTicker(pollEvery)
	}
}

// onPoll runs while stopping or cleaning up. The agent's group gets the
// grace to exit on the signal; once it is gone (or the grace is over) what
// is left, such as tools in their own sessions, is killed at once.
func (s *session) onPoll(now time.Time) {
	gone := s.exited && !s.kill.alive()
	if !gone && (!now.Before(s.stopAt) || s.exited && !s.kill.groupAlive()) {
		if sent := dedupe(s.kill.killAll()); len(sent) > 0 {
			s.o.Log.Info("kill", "signal", "SIGKILL", "pids", sent)
		}
		gone = s.exited
	}
	if gone && s.drained {
		s.poll.Stop()
		s.poll = nil
		s.phase = Exiting
	}
}

// onExit handles the agent's exit: the parent's slave copy goes, so the
// master reads to its end, and the reader drains what is buffered even if
// a descendant still holds the PTY.
func (s *session) onExit(st exitStatus) {
	s.exited = true
	s.out.ExitCode, s.out.ExitSignal = st.code, st.signal
	attrs := []any{"code", st.code}
	if st.signal != 0 {
		attrs = append(attrs, "signal", sigName(st.signal))
	}
	s.o.Log.Info("agent_exited", attrs...)
	s.p.closeSlave()
	s.r.drain()
	s.timer.Stop()
	if s.drained {
		s.afterExit()
	}
}

// afterExit runs once the agent exited and its output is drained: what is
// left of the tree gets the staged kill.
func (s *session) afterExit() {
	if !s.exited {
		return // EOF before the exit: the exit will come
	}
	if s.phase == Running {
		if s.kill.alive() {
			s.o.Log.Info("leftovers", "message", "the agent exited but left processes running; stopping them")
			s.stop(syscall.SIGTERM)
			return
		}
		s.phase = Exiting
		return
	}
	s.onPoll(time.Now())
}

// readStderr passes the agent's stderr on as it arrives and hands each line
// to the loop for the log.
func (s *session) readStderr(done chan<- struct{}) {
	defer close(done)
	defer close(s.stderr)
	split := stream.NewSplitter(64<<10, func(l stream.Line) {
		s.stderr <- append([]byte(nil), l.Text...)
	})
	buf := make([]byte, 32<<10)
	for {
		n, err := s.p.stderr.Read(buf)
		if n > 0 {
			_, _ = s.o.Stderr.Write(buf[:n]) // Our stderr failing must not stop the agent.
			split.Write(buf[:n])
		}
		if err != nil {
			split.Flush()
			return
		}
	}
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
