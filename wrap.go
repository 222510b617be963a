package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// job is everything one wrapper run needs, resolved from the command line,
// the environment and the config file.
type job struct {
	cfg     watchdog.Config // as at the start; config() has the current one
	flags   map[string]string
	current atomic.Pointer[watchdog.Config]
	reloads chan ptyproxy.Reload
	profile *stream.Profile
	cfgPath string
	dir     string   // the agent's working directory, "" for ours
	path    string   // the agent binary
	args    []string // its args for the first attempt
	env     []string
	parse   func(stream.Line) stream.Event // nil for byte watching
	stdin   *replayable                    // the prompt on stdin, if that is where it is
	console *sessionlog.Console
	redact  *sessionlog.Redactor
	level   *slog.LevelVar
	status  atomic.Pointer[ptyproxy.Status] // the latest, for the status line
}

// wrap is the wrapper command: resolve, run attempts, map the exit status.
func wrap(args []string) int {
	o, err := parseFlags(args, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		usage(os.Stdout)
		return 0
	}
	if err != nil {
		return fail(exitWrapper, "%v", err)
	}
	j, status := resolve(o)
	if j == nil {
		return status
	}
	return j.run()
}

// resolve builds the job, or returns the status to exit with.
func resolve(o options) (*job, int) {
	cfg, _, path, err := watchdog.Load(o.config, o.settings)
	if err != nil {
		return nil, fail(exitWrapper, "%v", err)
	}
	profile, bin, err := resolveAgent(cfg, os.Getenv(shellhook.FuncEnv))
	switch {
	case errors.Is(err, shellhook.ErrNotExecutable):
		return nil, fail(exitNotExec, "%v", err)
	case errors.Is(err, shellhook.ErrNotFound), errors.Is(err, shellhook.ErrIsWrapper):
		return nil, fail(exitNotFound, "%v", err)
	case err != nil:
		return nil, fail(exitWrapper, "%v", err)
	}
	env, err := shellhook.ChildEnv(os.Environ())
	if err != nil {
		return nil, fail(exitNotFound, "%v", err)
	}

	j := &job{cfg: cfg, flags: o.settings, profile: profile, path: bin, env: env, args: o.agentArgs, parse: profile.Parse,
		reloads: make(chan ptyproxy.Reload, 1)}
	j.current.Store(&cfg)
	j.cfgPath = path
	mode := stream.Events
	if o.alias {
		mode = profile.ModeOf(j.args)
		if mode == stream.Interactive {
			// Not headless: the agent gets the terminal, the pid and the
			// status as if the wrapper were not there.
			err := syscall.Exec(bin, append([]string{bin}, j.args...), env)
			return nil, fail(exitNotExec, "exec %s: %v", bin, err)
		}
	} else {
		model := o.model
		if profile != stream.Cursor && !o.modelSet {
			model = "" // "auto" is cursor's; other agents keep their own default
		}
		j.args = profile.Headless(j.args, stream.Direct{Model: model, Workspace: o.workspace, Force: o.force})
		if profile.WorkspaceByDir() {
			j.dir = o.workspace
		}
		mode = profile.ModeOf(j.args)
	}
	if mode == stream.Bytes {
		j.parse = nil
	}
	if !profile.HasPrompt(j.args) && !term.IsTerminal(0) {
		j.stdin = &replayable{r: os.Stdin}
	}
	j.level = new(slog.LevelVar)
	j.level.Set(levelOf(cfg.LogLevel))
	j.redact = sessionlog.NewRedactor(j.args, env)
	j.console = sessionlog.NewConsole(os.Stderr, term.IsTerminal(2), func() int {
		w, _, err := term.GetSize(2)
		if err != nil {
			return 80
		}
		return w
	})
	return j, 0
}

// run runs attempts until one ends without a hang or restarts are used
// up, and returns the exit status.
func (j *job) run() int {
	console := slog.New(j.console.Handler(j.level, j.redact))
	if err := ptyproxy.Init(); err != nil {
		return fail(exitWrapper, "%v", err)
	}
	sigs := ptyproxy.Signals()
	size, resize := watchSize()
	// Housekeeping runs beside the agent's start, not before it.
	go func() {
		if err := sessionlog.Prune(j.cfg.LogDir, j.cfg.LogKeep); err != nil {
			console.Debug("pruning old session logs: " + err.Error())
		}
	}()
	if j.cfg.Status {
		stop := j.drawStatus()
		defer stop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		w, err := watchdog.NewWatcher(j.cfgPath, func(msg string) { console.Debug(msg) })
		if err != nil {
			console.Debug("config changes will not be noticed: " + err.Error())
			return
		}
		w.Run(ctx, func() { j.reload(console) })
	}()

	var stdin io.Reader
	if j.stdin != nil {
		stdin = j.stdin
	}
	args, why := j.args, ""
	for attempt := 1; ; attempt++ {
		out, logPath, err := j.attempt(attempt, why, args, stdin, sigs, size, resize, console)
		if err != nil {
			if errors.Is(err, ptyproxy.ErrNotExecutable) {
				return fail(exitNotExec, "%v", err)
			}
			if errors.Is(err, ptyproxy.ErrNotFound) {
				return fail(exitNotFound, "%v", err)
			}
			return fail(exitWrapper, "%v", err)
		}
		cfg := j.config()
		if out.Cause != ptyproxy.Hung || attempt > cfg.Restarts {
			console.Info(summary(out, logPath))
			return out.Status()
		}
		if out.MidLine {
			// Keep stdout valid JSONL across attempts.
			_, _ = os.Stdout.Write([]byte{'\n'})
		}
		stdin = nil
		if out.SessionID != "" && j.profile.CanResume() {
			args = j.profile.Resume(j.args, out.SessionID, cfg.RestartPrompt)
			why = fmt.Sprintf("the last attempt hung (%s); resuming session %s with %q", out.Reason.Kind, out.SessionID, cfg.RestartPrompt)
		} else {
			args = j.args
			if j.stdin != nil {
				stdin = j.stdin.again()
			}
			cannot := "no session id was seen"
			if !j.profile.CanResume() {
				cannot = j.profile.Name + " cannot resume a session by id"
			}
			why = fmt.Sprintf("the last attempt hung (%s); %s, so the original command runs again", out.Reason.Kind, cannot)
		}
		console.Warn(fmt.Sprintf("restarting (attempt %d of %d): %s", attempt+1, cfg.Restarts+1, why))
	}
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

// attempt runs one attempt with its own session log.
func (j *job) attempt(n int, why string, args []string, stdin io.Reader, sigs <-chan os.Signal, size ptyproxy.WinSize, resize <-chan ptyproxy.WinSize, console *slog.Logger) (ptyproxy.Outcome, string, error) {
	start := time.Now()
	cfg := j.config()
	logFile := sessionlog.Open(j.cfg.LogDir, start, func(err error) {
		console.Warn("session log disabled: " + err.Error())
	})
	defer logFile.Close()
	records := j.redact.Writer(logFile)
	log := slog.New(slog.NewJSONHandler(records, &slog.HandlerOptions{Level: slog.LevelDebug}))
	log.Info("command", "attempt", n, "agent", j.profile.Name, "path", j.path,
		"argv", j.redact.Args(args), "env", j.redact.Env(j.env), "watch", map[bool]string{true: "events", false: "bytes"}[j.parse != nil])
	if why != "" {
		log.Warn("restart", "attempt", n, "why", why)
	}
	out, err := ptyproxy.Run(context.Background(), ptyproxy.Options{
		OnStatus:        j.setStatus,
		Path:            j.path,
		Args:            args,
		Env:             j.env,
		Dir:             j.dir,
		Stdin:           stdin,
		Stdout:          os.Stdout,
		Stderr:          j.console,
		Parse:           j.parse,
		Thresholds:      cfg.Thresholds(),
		Tick:            cfg.TickInterval,
		KillGrace:       cfg.KillGrace,
		Reload:          j.reloads,
		WinSize:         size,
		Resize:          resize,
		Signals:         sigs,
		Log:             log,
		Events:          records,
		Console:         console,
		OnSession:       logFile.Rename,
		ClaimAllOrphans: true,
	})
	if err != nil {
		log.Error("start_failed", "error", err.Error())
		return out, logFile.Path(), err
	}
	if out.Cause == ptyproxy.Hung && j.config().OnHang != "" {
		j.onHang(out, n, logFile.Path(), log, console)
	}
	if out.Status() != 0 {
		// A failed run's log must survive a crash of the machine too: it
		// is what explains the failure.
		defer logFile.Sync()
	}
	log.Info("exit", "cause", out.Cause.String(), "status", out.Status(), "duration_ms", out.Ended.Sub(out.Started).Milliseconds(),
		"lines", out.Lines, "tool_calls", out.ToolCalls, "longest_silence_ms", out.LongestSilence.Milliseconds())
	return out, logFile.Path(), nil
}

// onHang runs the on_hang command with the hang record on its stdin. Its
// failure is logged; it never changes the exit status.
func (j *job) onHang(out ptyproxy.Outcome, attempt int, logPath string, log, console *slog.Logger) {
	command := j.config().OnHang
	output, err := ptyproxy.RunOnHang(command, out, attempt, logPath, j.redact.Redact)
	if err != nil {
		log.Warn("on_hang_failed", "command", command, "error", err.Error(), "output", string(output))
		console.Warn("on_hang command failed: " + err.Error())
		return
	}
	log.Info("on_hang", "command", command, "output", string(output))
}

// config returns the configuration in force now.
func (j *job) config() watchdog.Config { return *j.current.Load() }

// reload re-reads the config file after a change. Valid, the new values
// apply at once, to the running attempt too; invalid or half-written, the
// last good values stay. Either way one line on stderr says so.
func (j *job) reload(console *slog.Logger) {
	cfg, changes, pinned, err := reloadConfig(j.config(), j.cfgPath, j.flags, console)
	switch {
	case err != nil:
		ptyproxy.SendReload(j.reloads, ptyproxy.Reload{Err: err})
	case len(changes) > 0 || len(pinned) > 0:
		j.current.Store(&cfg)
		j.level.Set(levelOf(cfg.LogLevel))
		ptyproxy.SendReload(j.reloads, ptyproxy.Reload{Thresholds: cfg.Thresholds(), Tick: cfg.TickInterval, KillGrace: cfg.KillGrace, Changes: changes, Pinned: pinned})
	}
}

// drawStatus redraws the status line from the latest snapshot four times
// a second, on a terminal only; the returned func erases it for good.
func (j *job) drawStatus() func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				j.console.Status("")
				return
			case now := <-tick.C:
				if st := j.status.Load(); st != nil {
					j.console.Status(st.Line(now))
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func (j *job) setStatus(st ptyproxy.Status) { j.status.Store(&st) }

// summary is the line printed when the wrapper exits.
func summary(out ptyproxy.Outcome, logPath string) string {
	s := fmt.Sprintf("session %s %s after %s", orNone(out.SessionID), outcomeWord(out), out.Ended.Sub(out.Started).Round(time.Millisecond))
	s += fmt.Sprintf("; %d tool calls; longest silence %s", out.ToolCalls, out.LongestSilence.Round(time.Millisecond))
	if len(out.SilenceOpen) > 0 {
		c := out.SilenceOpen[0]
		s += fmt.Sprintf(" (during %s %q)", c.Kind, c.Command)
	}
	if logPath != "" {
		s += "; log " + logPath
	}
	return s
}

func outcomeWord(out ptyproxy.Outcome) string {
	switch out.Cause {
	case ptyproxy.Hung:
		return "hung (" + out.Reason.Kind + ") and was killed"
	case ptyproxy.Overdue:
		return "answered, did not exit, and was stopped"
	case ptyproxy.Interrupted:
		return "was interrupted by " + out.Signal.String()
	case ptyproxy.Downstream:
		return "was stopped because stdout closed"
	}
	switch {
	case out.ExitSignal != 0:
		return "was killed by " + out.ExitSignal.String()
	case !out.Done:
		return fmt.Sprintf("exited %d without a result", out.ExitCode)
	}
	return fmt.Sprintf("finished (exit %d)", out.ExitCode)
}

func orNone(s string) string {
	if s == "" {
		return "(no id)"
	}
	return s
}

// watchSize returns the wrapper's terminal size, or the default, and a
// channel of new sizes when the terminal is resized.
func watchSize() (ptyproxy.WinSize, <-chan ptyproxy.WinSize) {
	fd := -1
	for _, f := range []int{1, 2, 0} {
		if term.IsTerminal(f) {
			fd = f
			break
		}
	}
	if fd < 0 {
		return ptyproxy.DefaultWinSize, nil
	}
	get := func() ptyproxy.WinSize {
		w, h, err := term.GetSize(fd)
		if err != nil || w <= 0 || h <= 0 {
			return ptyproxy.DefaultWinSize
		}
		return ptyproxy.WinSize{Rows: uint16(h), Cols: uint16(w)}
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	sizes := make(chan ptyproxy.WinSize, 1)
	go func() {
		for range winch {
			select {
			case <-sizes: // Only the newest size matters.
			default:
			}
			sizes <- get()
		}
	}()
	return get(), sizes
}
