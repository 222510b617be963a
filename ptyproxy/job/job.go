// Package job is the one place an agent run is assembled, whoever asks
// for it (the wrapper command, its restarts, the demo, the MCP server):
// resolving the command (agent binary, profile, environment, headless
// arguments), one attempt (its session log and records, ptyproxy.Run,
// on_hang, notifications), the restart policy, and the exit-status policy
// (how each attempt ended, computed once), with the words that report a
// run. A running attempt follows the configuration: job turns each
// config.Update into a ptyproxy.Reload with its finished record.
package job

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/notify"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/words"
)

// A Job is one run of an agent: a resolved command, and where its output,
// its stderr and the wrapper's messages go. Run runs its attempts.
type Job struct {
	Cmd  Command
	Live *config.Live
	// IO is every attempt's, but Stdin goes to the first attempt (and is
	// replayed to a rerun of the original command); a nil Stdin gives the
	// agent an empty one.
	ptyproxy.IO
	// Console takes the wrapper's own messages; they are redacted here.
	Console slog.Handler
	// Call, when set, fixes the run's idle and hard timeouts (an MCP
	// call's); reloads leave them alone.
	Call *Limits
	// NoRestart runs one attempt whatever the config's restarts say: the
	// caller resumes by itself.
	NoRestart bool
	// Clock is where the run and its attempts get the time; nil for the
	// system's.
	Clock ptyproxy.Clock

	OnStatus func(ptyproxy.Status)
	// OnSession is called when an attempt's stream names its session.
	OnSession func(id string)
	// OnEvent is called with each line's event as the output is read,
	// before the watchdog sees it; it must not block.
	OnEvent func(stream.Event)
	// Tap also receives every record of the session logs, masked (the
	// demo narrates from them).
	Tap sessionlog.Sink
	// TraceParent is the caller's place in a trace (W3C traceparent:
	// $TRACEPARENT, an MCP call's _meta.traceparent), the parent of the
	// run's span when traces are exported; "" for none.
	TraceParent string

	setup   sync.Once
	redact  *redact.Redactor
	console *slog.Logger
	mu      sync.Mutex
	log     *sessionlog.File     // the running attempt's
	rec     *sessionlog.Recorder // the running attempt's records, nil between attempts
	silent  *silentStdin         // the stdin closed after stdin_wait, if it may be
	notes   notices              // notify.go
	spent   stream.Tally         // over the attempts, each adding its total
	export  export               // telemetry.go
}

// Limits are an MCP call's own timeouts, as clamped to the [mcp] bounds,
// and its budgets (0 for none of its own): the tighter of a call's and the
// config's applies, so a reloaded one still holds.
type Limits struct {
	Via        string // who fixed them, for the command record: "mcp"
	Idle       time.Duration
	Hard       time.Duration
	MaxTokens  int
	MaxCostUSD float64
	Clamped    []config.Clamp
}

// A Result is how a run ended: its last attempt's outcome and log, and
// the agent's final answer.
type Result struct {
	ptyproxy.Outcome
	// End is how the run ended, as its exit record says: the status the
	// wrapper exits with, the cause, its kind, the signal; zero for an
	// agent that could not be started.
	End      sessionlog.End
	LogPath  string
	Attempts int
	// Before are the outcomes of the run's earlier attempts, first first:
	// a restart ran the next one.
	Before []ptyproxy.Outcome
	// Model is the model the last attempt asked for, when it was one of
	// fallback_models rather than the run's own.
	Model string
	// Spent is what the agent reported it spent over the run's attempts
	// so far, nil when it reported nothing (which is not 0).
	Spent *stream.Usage
	// Telemetry says what was not exported, and why (in the log too).
	Telemetry []string
}

// run runs the attempts (see Run).
func (j *Job) run(ctx context.Context) (Result, error) {
	cfg := j.Live.Config()
	// Housekeeping runs beside the agent's start, not before it.
	go func() {
		if err := sessionlog.Prune(cfg.LogDir, cfg.LogKeep); err != nil {
			j.console.Debug("pruning old session logs: " + err.Error())
		}
	}()

	src := j.stdinSource(cfg.StdinWait)
	var stdin *replay
	first := src
	if src != nil && !j.NoRestart && cfg.Restarts > 0 {
		// Kept for a rerun of the original command, which needs all of it.
		stdin = newReplay(src)
		first, _ = stdin.reader()
	}
	pol := &policy{off: j.NoRestart, agent: j.Cmd.Profile.Name, canResume: j.Cmd.Profile.CanResume()}
	args, why := j.Cmd.Args, ""
	var notes []sessionlog.Input // what a restart changed of the agent's input
	run := newRunID()
	var before []ptyproxy.Outcome
	for attempt := 1; ; attempt++ {
		res, err := j.attempt(ctx, run, attempt, why, args, first, notes)
		res.Before = before
		if err != nil {
			j.ended(res, err)
			return res, err
		}
		again, state := j.replayed(stdin)
		a := attemptEnd{cause: res.Cause, done: res.Done, events: res.Events, hangKind: res.Reason.Kind, agentErr: res.AgentError,
			sessionID: res.SessionID, resumed: !slices.Equal(args, j.Cmd.Args), stdin: state}
		if stdin != nil {
			a.stdinSize = stdin.size()
		}
		cfg := j.Live.Config()
		now := j.clock().Now()
		next := pol.next(now, a, restartSettings{restarts: cfg.Restarts, prompt: cfg.RestartPrompt, models: cfg.FallbackModels})
		if !next.again {
			if next.refusal != "" {
				j.console.Warn(next.refusal)
			}
			if next.stdinLost {
				j.stdinNotReplayed(res, next.refusal, stdin)
			}
			j.ended(res, nil)
			return res, nil
		}
		args, first, notes = j.Cmd.Args, again, j.restartNotes(next, cfg.RestartPrompt, stdin)
		if next.resume != "" {
			args, first = j.Cmd.Profile.Resume(j.Cmd.Args, next.resume, cfg.RestartPrompt), nil
		}
		if next.model != "" {
			args = j.Cmd.Profile.WithModel(args, next.model)
		}
		if res.MidLine {
			// Keep stdout valid JSONL across attempts.
			_, _ = j.Stdout.Write([]byte{'\n'})
		}
		j.console.Warn(fmt.Sprintf("restarting (attempt %d): %s", attempt+1, next.why))
		j.notify(notify.Restart, res, next.why)
		before = append(before, res.Outcome)
		if next.at.After(now) {
			if sig, stopped := j.sleep(ctx, next.at); stopped {
				res.Cause, res.Signal = ptyproxy.Interrupted, sig
				if sig == nil {
					res.Cause = ptyproxy.Cancelled
				}
				res = j.endedWaiting(res)
				j.ended(res, nil)
				return res, nil
			}
		}
		why = next.why
	}
}

// replayed is the run's stdin from its start for a rerun of the original
// command, and whether there is one to give.
func (j *Job) replayed(stdin *replay) (io.Reader, replayState) {
	switch {
	case j.Stdin == nil:
		return nil, noStdin
	case stdin == nil:
		return nil, stdinNotKept
	}
	r, err := stdin.reader()
	if err != nil {
		return nil, stdinTooLong
	}
	return r, stdinKept
}

// clock is the run's clock: Clock, or the system's.
func (j *Job) clock() ptyproxy.Clock {
	if j.Clock != nil {
		return j.Clock
	}
	return ptyproxy.SystemClock()
}

// newRunID names a run in its attempts' logs, so that a report counts
// them as one run.
func newRunID() string {
	var id [8]byte
	_, _ = rand.Read(id[:]) // Never fails (crypto/rand).
	return hex.EncodeToString(id[:])
}

// sleep waits until at on the run's clock, unless the run is cancelled
// or the wrapper gets a signal first: then it returns the signal and true.
// Stopped with its job meanwhile (Ctrl-Z), the wrapper stops and then
// waits out the rest.
func (j *Job) sleep(ctx context.Context, at time.Time) (os.Signal, bool) {
	t := j.clock().NewTimer()
	t.Reset(at)
	defer t.Stop()
	for {
		select {
		case <-t.C():
			return nil, false
		case sig := <-j.Signals:
			return sig, true
		case sig := <-j.Stops:
			ptyproxy.StopWithJob(sig, j.Terminal)
		case <-ctx.Done():
			return nil, true
		}
	}
}

// attempt runs attempt n of the run called run, with its own session log.
func (j *Job) attempt(ctx context.Context, run string, n int, why string, args []string, stdin io.Reader, notes []sessionlog.Input) (Result, error) {
	// Followed before the config is read, an attempt misses no reload.
	reloads, unfollow := j.follow()
	defer unfollow()
	cfg := j.Live.Config()
	logFile := sessionlog.Open(cfg.LogDir, j.clock().Now(), func(err error) {
		j.console.Warn("session log disabled: " + err.Error())
	})
	defer logFile.Close()
	j.mu.Lock()
	j.log = logFile
	j.mu.Unlock()
	sinks := []sessionlog.Sink{logFile}
	if j.Tap != nil {
		sinks = []sessionlog.Sink{&lockedSink{sinks: append(sinks, j.Tap)}} // Stdin's feeder records too.
	}
	rec := sessionlog.NewRecorder(j.redact, j.telemetrySinks(sinks)...)
	command := j.commandRecord(run, n, args)
	env := j.traced(&command)
	rec.Write(command)
	if why != "" {
		rec.Write(sessionlog.Restart{Attempt: n, Why: why})
	}
	for _, r := range j.inputRecords(args, env, notes) {
		rec.Write(r)
	}
	j.mu.Lock()
	j.rec = rec
	j.mu.Unlock()
	defer func() {
		j.mu.Lock()
		j.rec = nil
		j.mu.Unlock()
	}()
	j.budgetCaveats(rec, j.thresholds(cfg))
	warn := &warner{j: j, log: logFile, next: j.OnStatus}
	onSession := func(id string) {
		logFile.Rename(id)
		warn.session = id
		if j.OnSession != nil {
			j.OnSession(id)
		}
	}
	stdio := j.IO
	stdio.Stdin = stdin
	out, err := ptyproxy.Run(ctx, ptyproxy.Options{
		Path:        j.Cmd.Path,
		Args:        args,
		Env:         env,
		Dir:         j.Cmd.Dir,
		IO:          stdio,
		Parse:       j.parse(),
		StderrError: j.Cmd.Profile.Stderr,
		Asks:        j.Cmd.Profile.Asks,
		Runtime:     j.Cmd.Profile.Runtime(),
		KeepOrphans: cfg.KeepOrphans,
		Thresholds:  j.thresholds(cfg),
		Spent:       j.spent.Total(),
		Tick:        cfg.TickInterval,
		KillGrace:   cfg.KillGrace,
		Clock:       j.Clock,
		Reload:      reloads,
		Log:         rec,
		Console:     j.console,
		OnSession:   onSession,
		OnStatus:    warn.status,
	})
	res := Result{Outcome: out, LogPath: logFile.Path(), Attempts: n, Spent: j.spend(out.Usage)}
	if err == nil {
		res.End = j.Cmd.End(out, n, run)
	}
	if m := j.Cmd.Profile.Model(args); m != j.Cmd.Profile.Model(j.Cmd.Args) {
		res.Model = m
	}
	if err != nil {
		rec.Write(sessionlog.StartFailed{Error: err.Error(), Status: StartStatus(err)})
		return res, err
	}
	j.lateStdin(rec)
	j.notifyError(res)
	if q := out.Question; q != nil {
		words := words.Person(q.Quote, q.Fix)
		if out.Cause == ptyproxy.Exited {
			// Its own exit: the wrapper stopped nothing, but says why.
			rec.Write(sessionlog.Warning{Message: words})
			j.console.Error(words)
		}
		j.notify(notify.Error, res, words)
	}
	switch out.Cause {
	case ptyproxy.OverBudget:
		j.notify(notify.Error, res, res.Reason.Describe())
	case ptyproxy.Hung:
		j.notify(notify.Hang, res, res.Reason.Describe())
		j.onHang(j.Live.Config().OnHang, res, rec)
	}
	if res.End.Status != 0 {
		// A failed run's log must survive a crash of the machine too: it
		// is what explains the failure.
		defer logFile.Sync()
	}
	rec.Write(exitRecord(res, out.Ended))
	return res, nil
}

// exitRecord is the exit record of the attempt of res, which ended at end.
func exitRecord(res Result, end time.Time) sessionlog.Exit {
	out := res.Outcome
	exit := sessionlog.Exit{End: res.End, DurationMS: end.Sub(out.Started).Milliseconds(),
		Lines: out.Lines, ToolCalls: out.ToolCalls, LongestSilenceMS: out.LongestSilence.Milliseconds()}
	if out.Usage != nil {
		u := sessionlog.UsageOf(*out.Usage)
		exit.Usage = &u
	}
	return exit
}

// endedWaiting ends res, a run that ended while it waited to restart, and
// records it in the log of the attempt before: that attempt's exit record
// says how the attempt ended (hung, say), and sessions, report and inspect
// read a log's last exit record as how the run ended, here an
// interruption.
func (j *Job) endedWaiting(res Result) Result {
	res.End = j.Cmd.End(res.Outcome, res.Attempts, res.End.Run)
	if res.LogPath == "" {
		return res
	}
	exit := exitRecord(res, j.clock().Now())
	j.toTelemetry(exit)
	// A log that cannot take it was reported when it failed.
	_ = sessionlog.Append(res.LogPath, j.redact, exit)
	return res
}

// parse is the command's output parser, with OnEvent told of each event.
func (j *Job) parse() func(stream.Line) stream.Event {
	parse := j.Cmd.Parse()
	if parse == nil || j.OnEvent == nil {
		return parse
	}
	return func(l stream.Line) stream.Event {
		ev := parse(l)
		j.OnEvent(ev)
		return ev
	}
}

// commandRecord says how attempt n of run starts the agent, secrets masked.
func (j *Job) commandRecord(run string, n int, args []string) sessionlog.Command {
	c := sessionlog.Command{Attempt: n, Run: run, Agent: j.Cmd.Profile.Name, Demo: j.Cmd.Demo, Path: j.Cmd.Path,
		Argv: j.redact.Args(args), Env: j.redact.Env(j.Cmd.Env), Watch: j.Cmd.Watch()}
	if l := j.Call; l != nil {
		c.Via, c.IdleTimeout, c.HardTimeout = l.Via, l.Idle.String(), l.Hard.String()
		for _, cl := range l.Clamped {
			c.Clamped = append(c.Clamped, sessionlog.Clamp(cl))
		}
	}
	return c
}

// LogPath returns the running (or last) attempt's session log, "" before
// the first one starts.
func (j *Job) LogPath() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.log == nil {
		return ""
	}
	return j.log.Path()
}

// Logger returns the console's logger, behind the command's redaction.
func (j *Job) Logger() *slog.Logger {
	j.init()
	return j.console
}

// Mask masks the command's secrets in s, as the log and the console do.
func (j *Job) Mask(s string) redact.Masked { return j.Redactor().MaskString(s) }

// Redactor is the command's redactor, which masks its secrets in the log
// and on the console.
func (j *Job) Redactor() *redact.Redactor {
	j.init()
	return j.redact
}

func (j *Job) init() {
	j.setup.Do(func() {
		j.redact = redact.New(j.Cmd.Args, j.Cmd.Env)
		console := j.Console
		if console == nil {
			console = slog.DiscardHandler
		}
		j.console = slog.New(j.redact.Handler(console))
		j.notes.sender = &notify.Sender{Secrets: j.redact, Report: j.delivered}
	})
}
