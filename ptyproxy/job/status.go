package job

import (
	"errors"
	"syscall"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/shellhook"
)

// Exit statuses: the policy, in one place, for the wrapper command, the
// MCP server's results and the on_hang command's environment.
const (
	ExitUsage      = 2   // a subcommand's usage error
	ExitStdout     = 74  // the wrapper's stdout could not be written (EX_IOERR)
	ExitHang       = 124 // a hang detected and killed (restarts used up)
	ExitWrapper    = 125 // the wrapper itself failed: a bad flag, a bad config
	ExitNotExec    = 126 // the agent was found but cannot be run
	ExitNotFound   = 127 // no agent to run
	ExitSignalBase = 128 // 128+n after signal n
	// exitNoResult flags an agent that exited 0 without its result.
	exitNoResult = 1
)

// Status is the exit status for an attempt's outcome: the agent's own
// after its result (0 if it answered but had to be stopped); 124 for a
// hang; 1 for an agent that exited 0 without a result; 128+n for a
// signal n, the agent's or the wrapper's; 141 when the wrapper's stdout
// was closed by its reader, 74 when it failed otherwise.
func Status(out ptyproxy.Outcome) int {
	agent := out.ExitCode
	if out.ExitSignal != 0 {
		agent = ExitSignalBase + int(out.ExitSignal)
	}
	switch out.Cause {
	case ptyproxy.Hung:
		return ExitHang
	case ptyproxy.Overdue:
		return 0
	case ptyproxy.Interrupted:
		if s, ok := out.Signal.(syscall.Signal); ok {
			return ExitSignalBase + int(s)
		}
		return ExitSignalBase + int(syscall.SIGTERM)
	case ptyproxy.Downstream:
		if out.StdoutErr == nil || errors.Is(out.StdoutErr, syscall.EPIPE) {
			return ExitSignalBase + int(syscall.SIGPIPE)
		}
		return ExitStdout
	}
	if !out.Done && agent == 0 {
		return exitNoResult
	}
	return agent
}

// StartStatus is the exit status for an agent that could not be resolved
// or started: 126 not executable, 127 not found (or only the wrapper
// itself found), 125 anything else.
func StartStatus(err error) int {
	switch {
	case errors.Is(err, shellhook.ErrNotExecutable), errors.Is(err, ptyproxy.ErrNotExecutable):
		return ExitNotExec
	case errors.Is(err, shellhook.ErrNotFound), errors.Is(err, shellhook.ErrIsWrapper), errors.Is(err, ptyproxy.ErrNotFound):
		return ExitNotFound
	}
	return ExitWrapper
}
