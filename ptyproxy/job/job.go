// Package job is the one place an agent run is assembled, whoever asks
// for it (the wrapper command, its restarts, the demo, the MCP server):
// the configuration (the settings table, the TOML file, precedence, the
// file watch and the reload fan-out to running attempts), resolving the
// command (agent binary, profile, environment, headless arguments), one
// attempt (its session log and records, ptyproxy.Run, on_hang,
// notifications), restarts, and the exit-status policy.
package job

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/job/notify"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// A Job is one run of an agent: a resolved command, and where its output,
// its stderr and the wrapper's messages go. Run runs its attempts.
type Job struct {
	Cmd  Command
	Live *Live
	// Stdin is copied to the first attempt's stdin (and replayed to a
	// rerun of the original command); nil gives the agent an empty stdin.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer // the agent's stderr, as it arrives
	// Console takes the wrapper's own messages; they are redacted here.
	Console slog.Handler
	// Call, when set, fixes the run's idle and hard timeouts (an MCP
	// call's); reloads leave them alone.
	Call *Limits
	// NoRestart runs one attempt whatever the config's restarts say: the
	// caller resumes by itself.
	NoRestart bool
	// Shared says other jobs run in this process at the same time, so an
	// orphan is claimed only by the attempt whose marker it carries.
	Shared bool

	Signals  <-chan os.Signal
	WinSize  ptyproxy.WinSize
	Resize   <-chan ptyproxy.WinSize
	OnStatus func(ptyproxy.Status)
	// OnSession is called when an attempt's stream names its session.
	OnSession func(id string)
	// OnEvent is called with each line's event as the output is read,
	// before the watchdog sees it; it must not block.
	OnEvent func(stream.Event)
	// Tap also receives every record of the session logs, redacted (the
	// demo narrates from them).
	Tap io.Writer

	setup   sync.Once
	redact  *sessionlog.Redactor
	console *slog.Logger
	mu      sync.Mutex
	log     *sessionlog.File // the running attempt's
	notes   notices          // notify.go
}

// Limits are an MCP call's own timeouts, as clamped to the [mcp] bounds.
type Limits struct {
	Via     string // who fixed them, for the command record: "mcp"
	Idle    time.Duration
	Hard    time.Duration
	Clamped []Clamp
}

// A Clamp reports a timeout moved into the config's bounds.
type Clamp = sessionlog.Clamp

// A Result is how a run ended: its last attempt's outcome and log, and
// the agent's final answer.
type Result struct {
	ptyproxy.Outcome
	LogPath  string
	Attempts int
}

// Run runs attempts until one ends without a hang or the restarts are
// used up. The error is for an agent that could not be started
// (StartStatus maps it); everything after is in the Result.
func (j *Job) Run(ctx context.Context) (Result, error) {
	j.init()
	cfg := j.Live.Config()
	// Housekeeping runs beside the agent's start, not before it.
	go func() {
		if err := sessionlog.Prune(cfg.LogDir, cfg.LogKeep); err != nil {
			j.console.Debug("pruning old session logs: " + err.Error())
		}
	}()

	var stdin *replayable
	if j.Stdin != nil {
		stdin = &replayable{r: j.Stdin}
	}
	args, why := j.Cmd.Args, ""
	var first io.Reader
	if stdin != nil {
		first = stdin
	}
	for attempt := 1; ; attempt++ {
		res, err := j.attempt(ctx, attempt, why, args, first)
		if err != nil {
			j.ended(res, err)
			return res, err
		}
		cfg := j.Live.Config()
		if res.Cause != ptyproxy.Hung || j.NoRestart || attempt > cfg.Restarts {
			j.ended(res, nil)
			return res, nil
		}
		if res.MidLine {
			// Keep stdout valid JSONL across attempts.
			_, _ = j.Stdout.Write([]byte{'\n'})
		}
		first = nil
		p := j.Cmd.Profile
		if res.SessionID != "" && p.CanResume() {
			args = p.Resume(j.Cmd.Args, res.SessionID, cfg.RestartPrompt)
			why = fmt.Sprintf("the last attempt hung (%s); resuming session %s with %q", res.Reason.Kind, res.SessionID, cfg.RestartPrompt)
		} else {
			args = j.Cmd.Args
			if stdin != nil {
				first = stdin.again()
			}
			cannot := "no session id was seen"
			if !p.CanResume() {
				cannot = p.Name + " cannot resume a session by id"
			}
			why = fmt.Sprintf("the last attempt hung (%s); %s, so the original command runs again", res.Reason.Kind, cannot)
		}
		j.console.Warn(fmt.Sprintf("restarting (attempt %d of %d): %s", attempt+1, cfg.Restarts+1, why))
		j.notify(notify.Restart, res, why)
	}
}

// attempt runs one attempt with its own session log.
func (j *Job) attempt(ctx context.Context, n int, why string, args []string, stdin io.Reader) (Result, error) {
	// Followed before the config is read, an attempt misses no reload.
	reloads, unfollow := j.Live.follow(j.reload)
	defer unfollow()
	cfg := j.Live.Config()
	logFile := sessionlog.Open(cfg.LogDir, time.Now(), func(err error) {
		j.console.Warn("session log disabled: " + err.Error())
	})
	defer logFile.Close()
	j.mu.Lock()
	j.log = logFile
	j.mu.Unlock()
	var sink io.Writer = logFile
	if j.Tap != nil {
		sink = io.MultiWriter(logFile, j.Tap)
	}
	rec := sessionlog.NewRecorder(j.redact.Writer(sink))
	rec.Write(j.commandRecord(n, args))
	if why != "" {
		rec.Write(sessionlog.Restart{Attempt: n, Why: why})
	}
	warn := &warner{j: j, log: logFile, next: j.OnStatus}
	onSession := func(id string) {
		logFile.Rename(id)
		warn.session = id
		if j.OnSession != nil {
			j.OnSession(id)
		}
	}
	out, err := ptyproxy.Run(ctx, ptyproxy.Options{
		Path:            j.Cmd.Path,
		Args:            args,
		Env:             j.Cmd.Env,
		Dir:             j.Cmd.Dir,
		Stdin:           stdin,
		Stdout:          j.Stdout,
		Stderr:          j.Stderr,
		Parse:           j.parse(),
		Thresholds:      j.thresholds(cfg),
		Tick:            cfg.TickInterval,
		KillGrace:       cfg.KillGrace,
		Reload:          reloads,
		WinSize:         j.WinSize,
		Resize:          j.Resize,
		Signals:         j.Signals,
		Log:             rec,
		Console:         j.console,
		OnSession:       onSession,
		OnStatus:        warn.status,
		ClaimAllOrphans: !j.Shared,
	})
	res := Result{Outcome: out, LogPath: logFile.Path(), Attempts: n}
	if err != nil {
		rec.Write(sessionlog.StartFailed{Error: err.Error()})
		return res, err
	}
	if out.Cause == ptyproxy.Hung {
		j.notify(notify.Hang, res, res.Reason.Describe())
		j.onHang(j.Live.Config().OnHang, res, rec)
	}
	status := Status(out)
	if status != 0 {
		// A failed run's log must survive a crash of the machine too: it
		// is what explains the failure.
		defer logFile.Sync()
	}
	rec.Write(sessionlog.Exit{Cause: out.Cause.String(), Status: status, DurationMS: out.Ended.Sub(out.Started).Milliseconds(),
		Lines: out.Lines, ToolCalls: out.ToolCalls, LongestSilenceMS: out.LongestSilence.Milliseconds()})
	return res, nil
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

// commandRecord says how attempt n starts the agent, secrets masked.
func (j *Job) commandRecord(n int, args []string) sessionlog.Command {
	c := sessionlog.Command{Attempt: n, Agent: j.Cmd.Profile.Name, Path: j.Cmd.Path,
		Argv: j.redact.Args(args), Env: j.redact.Env(j.Cmd.Env), Watch: j.Cmd.Watch()}
	if l := j.Call; l != nil {
		c.Via, c.IdleTimeout, c.HardTimeout, c.Clamped = l.Via, l.Idle.String(), l.Hard.String(), l.Clamped
	}
	return c
}

// thresholds are the config's, with the call's own timeouts if it set
// them.
func (j *Job) thresholds(cfg Config) watchdog.Thresholds {
	th := cfg.Thresholds
	if l := j.Call; l != nil {
		th.IdleTimeout, th.HardTimeout = l.Idle, l.Hard
	}
	return th
}

// callKeys are the settings a call fixes for its whole run.
var callKeys = []string{"idle_timeout", "hard_timeout"}

// reload turns a reloaded configuration into what the running attempt
// applies. A call's own timeouts stay as it set them, reported as pinned.
func (j *Job) reload(cfg Config, changes []Change, pinned []string) ptyproxy.Reload {
	if j.Call != nil {
		var applied []Change
		for _, ch := range changes {
			if slices.Contains(callKeys, ch.Key) {
				pinned = append(slices.Clip(pinned), ch.Key+" (set by the "+j.Call.Via+" call)")
				continue
			}
			applied = append(applied, ch)
		}
		changes = applied
	}
	return ptyproxy.Reload{Thresholds: j.thresholds(cfg), Tick: cfg.TickInterval, KillGrace: cfg.KillGrace, Changes: changes, Pinned: pinned}
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

// Redact masks the command's secrets in b, as the log and the console do.
func (j *Job) Redact(b []byte) []byte {
	j.init()
	return j.redact.Redact(b)
}

func (j *Job) init() {
	j.setup.Do(func() {
		j.redact = sessionlog.NewRedactor(j.Cmd.Args, j.Cmd.Env)
		console := j.Console
		if console == nil {
			console = slog.DiscardHandler
		}
		j.console = slog.New(j.redact.Handler(console))
	})
}

// replayable is the wrapper's stdin as the first attempt reads it, kept so
// that a rerun of the original command gets the same prompt.
type replayable struct {
	r    io.Reader
	mu   sync.Mutex
	read []byte
}

func (t *replayable) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.mu.Lock()
	t.read = append(t.read, p[:n]...)
	t.mu.Unlock()
	return n, err
}

// again returns what was read so far, to be read once more.
func (t *replayable) again() io.Reader {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.NewReader(slices.Clone(t.read))
}
