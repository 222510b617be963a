// Package wrap is the wrapper command itself, `cursor-wrap [flags] --
// [agent args]`: it resolves the agent, runs it watched on the process's
// own descriptors, and exits with the status the run calls for.
package wrap

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/cli/version"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/console"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
)

// Run is the wrapper command: resolve the agent, run it watched, and
// return the status the run calls for. It runs on env's streams as they
// are: a terminal among them is the user's (its size, the status line,
// Ctrl-Z), and a stdin that is no terminal is the agent's.
func Run(env *cli.Env, args []string) int {
	o, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		Usage(env.Stdout, env.Commands)
		return 0
	}
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	if o.Version {
		return version.Run(env, nil)
	}
	if len(o.AgentArgs) > 0 && !o.Dashed {
		// A prompt never comes as a bare word: a typo of a subcommand
		// must not become a prompt run with --force.
		return env.Fail(job.ExitUsage, "%v", misplaced(env.Commands, o.AgentArgs, len(o.AgentArgs) == len(args)))
	}
	if len(o.AgentArgs) == 0 && !o.Alias && cli.IsTerminal(env.Stdin) {
		// No prompt and nobody to pipe one: a bare cursor-wrap typed to
		// see what it is must not start a headless agent with --force.
		Usage(env.Stderr, env.Commands)
		return job.ExitUsage
	}
	req := job.Request{Args: o.AgentArgs, Alias: o.Alias, Invoked: os.Getenv(shellhook.FuncEnv), Workspace: o.Workspace, NoForce: !o.Force || o.NoForce}
	if o.ModelSet {
		req.Model = o.Model
	}
	live, err := config.LoadLive(o.Config, o.Settings)
	if err != nil {
		return brokenConfig(env, err, o, req)
	}
	cmd, err := job.Resolve(live.Config(), req)
	if err != nil {
		return env.Fail(job.StartStatus(err), "%v", err)
	}
	if cmd.Mode == stream.Interactive {
		return unwatched(env, cmd)
	}
	if err := ptyproxy.Init(); err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	in, out, errFd := cli.Fd(env.Stdin), cli.Fd(env.Stdout), cli.Fd(env.Stderr)
	stderr := console.New(env.Stderr, cli.IsTerminal(env.Stderr), func() int {
		w, _, err := term.GetSize(errFd)
		if err != nil {
			return 80
		}
		return w
	})
	// Written as long as stderr takes some at least every ptyproxy.Stall,
	// as stdout is: a slow reader gets the end of the agent's stderr and
	// the summary line.
	defer stderr.Close(ptyproxy.Stall)
	// The console masks every line with the command's secrets, the job's
	// too, and the config watcher's, which speak before the job does.
	secrets := redact.New(cmd.Args, cmd.Env)
	messages := slog.New(stderr.Handler(live.Level(), secrets))
	for _, w := range cli.UnknownEnv(os.Environ()) {
		messages.Warn(w)
	}
	size, resize, getSize := watchSize(out, errFd, in)
	stdout := stderr.Stdout(env.Stdout, out >= 0 && errFd >= 0 && ptyproxy.SameTerminal(out, errFd))
	j := &job.Job{
		Cmd: cmd, Live: live, Console: stderr.Handler(live.Level(), secrets),
		IO: ptyproxy.IO{Stdout: stdout, Stderr: stderr, Signals: ptyproxy.Signals(), WinSize: size, Resize: resize,
			Stops: ptyproxy.JobStops(), Terminal: jobTerminal{stderr, getSize}},
		TraceParent: os.Getenv("TRACEPARENT"), // as CI systems and orchestrators pass it
	}
	// A stdin that is not a terminal holds the prompt, or context beside a
	// prompt in the args (as Claude Code, Codex and Gemini CLI read it):
	// it is the agent's, to its end (beside a prompt, one that gives
	// nothing for stdin_wait is closed: job's silentStdin). A terminal is
	// left to the wrapper.
	if o.Stdin != "close" && !cli.IsTerminal(env.Stdin) {
		j.Stdin = env.Stdin
	}
	stopStatus := func() {}
	if live.Config().Status {
		var latest atomic.Pointer[ptyproxy.Status]
		j.OnStatus = func(st ptyproxy.Status) { latest.Store(&st) }
		stopStatus = drawStatus(stderr, errFd, &latest, cmd.Profile, j.Mask)
		defer stopStatus()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live.Watch(ctx, messages)
	res, err := j.Run(ctx)
	if err != nil {
		return env.Fail(job.StartStatus(err), "%v", err)
	}
	if o.Alias && res.Cause == ptyproxy.Exited {
		// Through the shell functions an agent that ended by itself shows
		// nothing of the wrapper, as without it; the log has the run.
		j.Logger().Debug(cmd.Summary(res))
	} else {
		j.Logger().Info(cmd.Summary(res))
	}
	if n := len(res.Telemetry); n > 0 && !o.Alias {
		// One line at most; the log has each.
		line := res.Telemetry[0]
		if n > 1 {
			line += fmt.Sprintf(" (and %d more in the session log)", n-1)
		}
		j.Logger().Warn(line)
	}
	if next := cmd.NextStep(res, typedRun(env, args, o, req, cmd), live.Config().RestartPrompt, inspectCommand(env, res.LogPath)); next != "" {
		j.Logger().Info(next)
	}
	stopStatus() // Taken down before the last of stderr is written.
	j.StderrUnwritten(res, stderr.Close(ptyproxy.Stall))
	return res.End.Status
}

// unwatched runs a command the wrapper does not watch (not headless) in
// its place: the agent gets the terminal, the pid and the status as if the
// wrapper were not there.
func unwatched(env *cli.Env, cmd job.Command) int {
	err := reaper.Exec(cmd.Path, append([]string{cmd.Path}, cmd.Args...), cmd.Env)
	return env.Fail(job.ExitNotExec, "exec %s: %v", cmd.Path, err)
}

// brokenConfig is what a broken configuration (the file, a variable, a
// flag: cfgErr) leaves of a run. A command the wrapper would not watch
// runs as without it, with the agent found without the file and a one-line
// warning: a typo must not block `cursor-agent --help`. A run it would
// watch is refused, with the error (its line), the fix and the bypass:
// watched on defaults it would silently lose the user's budgets and hard
// timeout, which is not the run they asked for.
func brokenConfig(env *cli.Env, cfgErr error, o cli.Options, req job.Request) int {
	cmd, err := job.Resolve(config.Fallback(o.Settings), req)
	if o.Alias && err == nil && cmd.Mode == stream.Interactive {
		fmt.Fprintf(env.Stderr, "cursor-wrap: warning: config ignored for this unwatched command: %s\n", strings.ReplaceAll(cfgErr.Error(), "\n", "; "))
		return unwatched(env, cmd)
	}
	// `command NAME` skips the shell function in bash, zsh and fish alike.
	agent := req.Invoked
	if agent == "" && err == nil {
		agent = filepath.Base(cmd.Path)
	}
	return env.Fail(job.ExitWrapper, "%v\ncursor-wrap: fix it (`%s config --defaults` prints every key at its default); until then every watched run stops here, with exit %d, and `command %s …` runs the agent without the wrapper",
		cfgErr, env.TypedName(), job.ExitWrapper, cmp.Or(agent, "cursor-agent"))
}

// typedRun is how the user started this run, the words before the agent's
// arguments, as their shell runs them: the shell function's name in alias
// mode; in direct mode the wrapper, the flags they gave it but --notify
// (a webhook URL carries its secret; the resumed run reads the same
// config) and "--".
func typedRun(env *cli.Env, args []string, o cli.Options, req job.Request, cmd job.Command) string {
	if o.Alias {
		return job.ShellWords([]string{cmp.Or(req.Invoked, filepath.Base(cmd.Path))})
	}
	flags := args[:len(args)-len(o.AgentArgs)]
	if o.Dashed {
		flags = flags[:len(flags)-1]
	}
	var kept []string
	for i := 0; i < len(flags); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
		if name == "notify" {
			if !hasValue {
				i++
			}
			continue
		}
		kept = append(kept, flags[i])
	}
	return env.TypedName() + " " + job.ShellWords(append(kept, "--"))
}

// inspectCommand is the command that shows a run's log: inspect --last
// when that finds it (the log is in the dir inspect reads without flags),
// else inspect with the log's path.
func inspectCommand(env *cli.Env, logPath string) string {
	if logPath == "" {
		return ""
	}
	if cfg, _, err := config.Load("", nil); err == nil && filepath.Clean(cfg.LogDir) == filepath.Dir(logPath) {
		return env.TypedName() + " inspect --last"
	}
	return env.TypedName() + " inspect " + job.ShellWords([]string{logPath})
}

// drawStatus redraws the status line from the latest snapshot four times
// a second, on a terminal only (stderr's, at fd), in the words of the
// agent's profile, with the command's secrets masked (a tool call's
// command can hold one); the returned func erases it for good.
func drawStatus(stderr *console.Console, fd int, latest *atomic.Pointer[ptyproxy.Status], profile *stream.Profile, mask func(string) redact.Masked) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				stderr.Status(redact.Masked{})
				return
			case now := <-tick.C:
				// In the background (bg) the terminal is the shell's.
				if st := latest.Load(); st != nil && !background(fd) {
					stderr.Status(mask(st.Line(now, profile)))
				}
			}
		}
	}()
	return sync.OnceFunc(func() { close(done); <-stopped })
}

// background reports whether the terminal at fd is the wrapper's
// controlling terminal with another process group in its foreground (the
// shell's, after bg). A terminal that is not its controlling one has no
// say (ENOTTY).
func background(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pgrp != unix.Getpgrp()
}

// jobTerminal is the user's terminal as the wrapper stopping with its job
// touches it: the status line is taken down before and drawn again after,
// and the size read again, since it may have changed meanwhile.
type jobTerminal struct {
	console *console.Console
	size    func() ptyproxy.WinSize
}

func (t jobTerminal) Suspend() { t.console.Hold(100 * time.Millisecond) }

func (t jobTerminal) Resume() ptyproxy.WinSize {
	t.console.Release()
	return t.size()
}

// watchSize returns the wrapper's terminal size (that of the first of
// fds that is a terminal), or the default, a channel of new sizes when the
// terminal is resized, and how to read the size again.
func watchSize(fds ...int) (ptyproxy.WinSize, <-chan ptyproxy.WinSize, func() ptyproxy.WinSize) {
	fd := -1
	for _, f := range fds {
		if f >= 0 && term.IsTerminal(f) {
			fd = f
			break
		}
	}
	if fd < 0 {
		return ptyproxy.DefaultWinSize, nil, func() ptyproxy.WinSize { return ptyproxy.WinSize{} }
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
	return get(), sizes, get
}
