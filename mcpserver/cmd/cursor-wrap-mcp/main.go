// Command cursor-wrap-mcp serves watched agent runs to MCP clients on
// stdio; `cursor-wrap mcp` runs it. It is a binary of its own so that the
// MCP SDK, which a long-running server needs, does not weigh on the start
// of every wrapped agent run (measured: 1.3–1.9 ms of process start).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"cursor-wrap/mcpserver"
	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// Exit statuses, as the wrapper command's.
const (
	exitUsage      = 2
	exitWrapper    = 125
	exitNotExec    = 126
	exitNotFound   = 127
	exitSignalBase = 128
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func fail(status int, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "cursor-wrap: "+format+"\n", a...)
	return status
}

// run serves watched agent runs over MCP on stdio:
// cursor-wrap mcp [--config FILE] [--log-dir DIR] [--agent-bin PATH] [--log-level LEVEL].
// stdout carries MCP frames only; diagnostics go to stderr.
func run(args []string) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	configPath := fs.String("config", "", "config file (default $CURSOR_WRAP_CONFIG, else $XDG_CONFIG_HOME/cursor-wrap/config.toml)")
	settings := map[string]string{}
	for _, key := range []string{"log_dir", "agent_bin", "log_level"} {
		s, _ := watchdog.Lookup(key)
		fs.Func(s.Flag(), s.Doc, func(v string) error { settings[key] = v; return nil })
	}
	const usageLine = "usage: cursor-wrap mcp [--config FILE] [--log-dir DIR] [--agent-bin PATH] [--log-level LEVEL]"
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Println(usageLine + "\n\nServes run_agent and agent_sessions to an MCP client on stdin and stdout.")
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
		return 0
	} else if err != nil || fs.NArg() > 0 {
		return fail(exitUsage, usageLine)
	}
	cfg, _, path, err := watchdog.Load(*configPath, settings)
	if err != nil {
		return fail(exitWrapper, "%v", err)
	}
	// The wrapper, installed beside this binary, is what must never be
	// taken for the agent (a cursor-agent symlink to it on PATH).
	self, _ := os.Executable()
	self = filepath.Join(filepath.Dir(self), "cursor-wrap")
	agents := &mcpAgents{self: self}
	agents.cfg.Store(&cfg)
	// A server that cannot run its agent says so at start, as the wrapper
	// command does, not at the first call.
	if _, _, err := agents.configured(cfg); err != nil {
		if errors.Is(err, shellhook.ErrNotExecutable) {
			return fail(exitNotExec, "%v", err)
		}
		return fail(exitNotFound, "%v", err)
	}
	if err := ptyproxy.Init(); err != nil {
		return fail(exitWrapper, "%v", err)
	}
	out, err := mcpStdout()
	if err != nil {
		return fail(exitWrapper, "mcp: %v", err)
	}
	// A client gone is a write error, not a SIGPIPE; INT, TERM and HUP
	// stop the server.
	sigs := ptyproxy.Signals()

	level := new(slog.LevelVar)
	level.Set(levelOf(cfg.LogLevel))
	console := sessionlog.NewConsole(os.Stderr, false, nil)
	diag := slog.New(console.Handler(level, sessionlog.NewRedactor(nil, os.Environ())))
	srv := mcpserver.New(mcpserver.Options{Config: cfg, Prepare: agents.prepare, Console: console, Level: level, Version: version()})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got atomic.Value // the signal that stopped the server
	go func() {
		select {
		case sig := <-sigs:
			got.Store(sig)
			diag.Info("got " + sig.String() + "; killing every running agent")
			cancel()
		case <-ctx.Done():
		}
	}()
	if w, err := watchdog.NewWatcher(path, func(msg string) { diag.Debug(msg) }); err != nil {
		diag.Debug("config changes will not be noticed: " + err.Error())
	} else {
		go w.Run(ctx, func() { agents.reload(path, settings, srv, level, diag) })
	}
	diag.Info("mcp: serving on stdio", "config", path, "log_dir", cfg.LogDir)
	err = srv.Serve(ctx, &mcp.IOTransport{Reader: os.Stdin, Writer: out})
	if sig, ok := got.Load().(syscall.Signal); ok {
		return exitSignalBase + int(sig)
	}
	if err != nil {
		return fail(exitWrapper, "mcp: %v", err)
	}
	return 0
}

// mcpStdout returns the MCP transport's own copy of stdout, and points fd 1
// at stderr: whatever else writes to stdout (a stray print, a library, a
// child that inherits it) lands among the diagnostics, never among the
// frames.
func mcpStdout() (*os.File, error) {
	fd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("dup stdout: %w", err)
	}
	if err := unix.Dup2(2, 1); err != nil {
		return nil, fmt.Errorf("stdout to stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "mcp-stdout"), nil
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// mcpAgents turns run_agent calls into agent command lines, exactly as the
// wrapper command's direct mode does, with the configuration in force.
type mcpAgents struct {
	self string
	cfg  atomic.Pointer[watchdog.Config]
}

// prepare is the server's Prepare.
func (m *mcpAgents) prepare(l mcpserver.Launch) (mcpserver.Command, error) {
	cfg := *m.cfg.Load()
	profile, bin, err := m.agent(cfg, l.Agent)
	if err != nil {
		return mcpserver.Command{}, err
	}
	env, err := shellhook.ChildEnv(os.Environ())
	if err != nil {
		return mcpserver.Command{}, err
	}
	model := l.Model
	if model == "" && profile == stream.Cursor {
		model = "auto" // As the wrapper's --model; other agents keep their own default.
	}
	args := profile.Headless([]string{l.Prompt}, stream.Direct{Model: model, Workspace: l.Workspace, Force: true})
	if l.Resume != "" {
		if !profile.CanResume() {
			return mcpserver.Command{}, fmt.Errorf("%w: %s cannot resume a session by id", mcpserver.ErrInvalid, profile.Name)
		}
		args = profile.Resume(args, l.Resume, l.Prompt)
	}
	cmd := mcpserver.Command{Agent: profile.Name, Path: bin, Args: args, Env: env, Parse: profile.Parse}
	if profile.ModeOf(args) != stream.Events {
		cmd.Parse = nil
	}
	return cmd, nil
}

// agent resolves a call's agent: the configured one (agent, agent_bin)
// when the call names none or names that one; another agent by its own
// binaries on PATH.
func (m *mcpAgents) agent(cfg watchdog.Config, name string) (*stream.Profile, string, error) {
	if name == "" || name == cfg.Agent {
		return m.configured(cfg)
	}
	if cfg.Agent == "" {
		if p, bin, err := m.configured(cfg); err == nil && p.Name == name {
			return p, bin, nil
		}
	}
	profile, err := stream.ProfileNamed(name)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", mcpserver.ErrInvalid, err)
	}
	names, err := shellhook.Binaries(profile.Name, "")
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", mcpserver.ErrInvalid, err)
	}
	bin, err := shellhook.Resolve(names, "", m.self, os.Getenv("PATH"))
	return profile, bin, err
}

// configured resolves the configured agent as the wrapper command does.
func (m *mcpAgents) configured(cfg watchdog.Config) (*stream.Profile, string, error) {
	name, bin, err := shellhook.FindAgent(cfg.Agent, "", cfg.AgentBin, m.self, os.Getenv("PATH"))
	if err != nil {
		return nil, "", err
	}
	profile, err := stream.ProfileNamed(name)
	return profile, bin, err
}

// reload re-reads the config file after a change, as the wrapper command
// does: valid, the server and its running agents get it at once; invalid,
// the last good values stay. Either way one line on stderr says so.
func (m *mcpAgents) reload(path string, settings map[string]string, srv *mcpserver.Server, level *slog.LevelVar, diag *slog.Logger) {
	cfg, changes, pinned, err := watchdog.Reload(*m.cfg.Load(), path, settings)
	switch {
	case err != nil:
		diag.Warn("config not reloaded, keeping the last good values: " + err.Error())
		srv.ConfigError(err)
	case len(changes) > 0 || len(pinned) > 0:
		diag.Info("config reloaded: " + watchdog.Summary(changes, pinned))
		m.cfg.Store(&cfg)
		level.Set(levelOf(cfg.LogLevel))
		srv.SetConfig(cfg, changes, pinned)
	}
}

func levelOf(name string) slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(name)) // Validated with the config.
	return l
}
