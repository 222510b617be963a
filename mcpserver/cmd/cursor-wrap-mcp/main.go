// Command cursor-wrap-mcp serves watched agent runs to MCP clients on
// stdio; `cursor-wrap mcp` runs it. It is a binary of its own so that the
// MCP SDK, which a long-running server needs, does not weigh on the start
// of every wrapped agent run (measured: 1.3–1.9 ms of process start).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"cursor-wrap/mcpserver"
	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/words"
)

func main() {
	os.Exit(run(&cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Arg0: os.Args[0]}, os.Args[1:]))
}

// mcpAbout says what the server does, under its usage line.
const mcpAbout = "Serves start_agent, wait_agent, cancel_agent, run_agent and agent_sessions to an MCP client on stdin and stdout."

// run serves watched agent runs over MCP on stdio, with the command line
// of `cursor-wrap mcp`. stdout carries MCP frames only; diagnostics go to
// stderr.
func run(env *cli.Env, args []string) int {
	cmd := cli.MCP(run)
	var o cli.MCPOptions
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	o.Declare(fs)
	if status, done := cli.ParseSub(env, fs, args, cmd.Name, cmd.Usage()+"\n"+mcpAbout, true); done {
		return status
	}
	if o.Version {
		fmt.Fprintln(env.Stdout, cli.Version("cursor-wrap-mcp"))
		return 0
	}
	live, err := config.LoadLive(o.Config, o.Settings)
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	if err := ptyproxy.Init(); err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	out, err := mcpStdout()
	if err != nil {
		return env.Fail(job.ExitWrapper, "mcp: %v", err)
	}
	// A client gone is a write error, not a SIGPIPE; INT, TERM and HUP
	// stop the server.
	sigs := ptyproxy.Signals()

	console := job.Diagnostics(env.Stderr, live.Level())
	diag := slog.New(console)
	srv := mcpserver.New(mcpserver.Options{Live: live, Console: console, Version: cli.Release()})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got atomic.Value // the signal that stopped the server
	go func() {
		select {
		case sig := <-sigs:
			got.Store(sig)
			diag.Info("got " + words.Signal(sig) + "; killing every running agent")
			cancel()
		case <-ctx.Done():
		}
	}()
	live.Watch(ctx, diag)
	diag.Info("mcp: serving on stdio", "config", live.Path(), "log_dir", live.Config().LogDir)
	// A server that cannot run its agent still starts: an exit before the
	// handshake shows a client only "Connection closed", while each call
	// answers with the error and its fix. The server's log says it too.
	if _, err := job.Resolve(live.Config(), job.Request{Alias: true, Wrapper: job.WrapperBeside()}); err != nil {
		diag.Warn("mcp: every call that runs the configured agent will fail until this is fixed: " + err.Error())
	}
	err = srv.Serve(ctx, os.Stdin, out)
	if sig, ok := got.Load().(syscall.Signal); ok {
		return job.ExitSignalBase + int(sig)
	}
	if err != nil {
		return env.Fail(job.ExitWrapper, "mcp: %v", err)
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
