package job

import (
	"errors"
	"syscall"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
	"cursor-wrap/words"
)

// Exit statuses: the policy, in one place, for the wrapper command, the
// MCP server's results and the on_hang command's environment.
const (
	ExitUsage      = 2   // a subcommand's usage error, an unknown command
	ExitStdout     = 74  // the wrapper's stdout could not be written (EX_IOERR)
	ExitHang       = 124 // a hang detected and killed (restarts used up)
	ExitWrapper    = 125 // the wrapper itself failed: a bad flag, a bad config
	ExitNotExec    = 126 // the agent was found but cannot be run
	ExitNotFound   = 127 // no agent to run
	ExitSignalBase = 128 // 128+n after signal n
	// A direct run that failed after the agent said why: one status per
	// kind of agent error, so a script can tell waiting from logging in.
	ExitRateLimit = 80
	ExitNetwork   = 81
	ExitQuota     = 82
	ExitAuth      = 83
	ExitUpdate    = 84
	// ExitPerson: the agent asked what only a person can answer (trust,
	// a login, [y/N]); the wrapper stopped it, or it gave up.
	ExitPerson = sessionlog.StatusPerson
	// ExitBudget: the agent reported more than max_tokens or max_cost_usd
	// allows, and the wrapper stopped it.
	ExitBudget = sessionlog.StatusBudget
	// exitNoResult flags a direct stream-json run whose agent exited 0
	// without its result.
	exitNoResult = 1
)

// End is how attempt n of the run called run, an attempt of c that ended
// as out, ended: its exit status (status), cause, kind and signal. It is
// computed once, when the attempt ends: the result carries it, the exit
// record holds it, and whoever exits, answers or notifies with a status
// reads it there.
func (c Command) End(out ptyproxy.Outcome, n int, run string) sessionlog.End {
	e := sessionlog.End{Cause: out.Cause.String(), Status: c.status(out), Attempt: n, Run: run}
	switch out.Cause {
	case ptyproxy.Hung:
		e.Kind = out.Reason.Kind
	case ptyproxy.OverBudget:
		e.Kind = out.Reason.Budget
	case ptyproxy.Exited:
		switch {
		case e.Status == ExitPerson && out.Question != nil:
			e.Kind = sessionlog.KindQuestion
		case e.Status != 0 && out.AgentError != nil:
			e.Kind = string(out.AgentError.Kind)
		}
	}
	switch {
	case out.Cause == ptyproxy.Interrupted && out.Signal != nil:
		e.Signal = words.Signal(out.Signal)
	case out.ExitSignal != 0:
		e.Signal = words.Signal(out.ExitSignal)
	}
	return e
}

// status is the exit status of an attempt of c that ended as out. It is
// the agent's own (128+n when a signal n ended it, as a shell reports it),
// except where the wrapper acted: 124 for a hang; 85 when the agent asked
// what only a person can answer and was stopped; 86 when it passed a
// budget and was stopped; 0 when the agent gave
// its answer but had to be stopped; 128+n for a signal n the wrapper got
// and passed on; 141 when the wrapper's stdout was closed by its reader, 74
// when it failed otherwise. One more case is the wrapper's: a direct
// stream-json run, where the wrapper itself asked for the stream and a
// result must end it, turns an exit 0 without that result into 1, since
// the stream was cut short, and a direct run whose agent exited 0 with such
// a question as its last words into 85, and a direct run whose result
// said it failed (is_error) but exited 0 into 1. A direct run that fails (either way) after the
// agent said why it cannot go on gets that reason's status, 80–84. An
// alias-mode run (the shell functions) keeps the agent's status: a drop-in
// must not fail `cursor-agent -p "…" && deploy` that succeeds without the
// wrapper, nor change how it fails.
func (c Command) status(out ptyproxy.Outcome) int {
	agent := out.ExitCode
	if out.ExitSignal != 0 {
		agent = ExitSignalBase + int(out.ExitSignal)
	}
	switch out.Cause {
	case ptyproxy.Hung:
		return ExitHang
	case ptyproxy.AwaitingPerson:
		return ExitPerson
	case ptyproxy.OverBudget:
		return ExitBudget
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
	status := agent
	if status == 0 && c.Direct && out.Question != nil {
		return ExitPerson // A refusal, not a success.
	}
	if c.truncates(out) {
		status = exitNoResult
	}
	if !c.Direct {
		return status
	}
	if status == 0 && out.Failed {
		// Its result said it failed: not a success, whatever its exit.
		status = exitNoResult
	}
	if e := out.AgentError; status != 0 && e != nil {
		if s, ok := errorStatus[e.Kind]; ok {
			return s
		}
	}
	return status
}

var errorStatus = map[stream.ErrorKind]int{
	stream.RateLimit: ExitRateLimit,
	stream.Network:   ExitNetwork,
	stream.Quota:     ExitQuota,
	stream.Auth:      ExitAuth,
	stream.Update:    ExitUpdate,
}

// truncates reports whether out is a direct stream-json run that exited
// 0 without its result.
func (c Command) truncates(out ptyproxy.Outcome) bool {
	return c.Direct && c.Mode == stream.Events && !out.Done && out.ExitCode == 0 && out.ExitSignal == 0
}

// StartStatus is the exit status for an agent that could not be resolved
// or started: 126 not executable, 127 not found (or only the wrapper
// itself found), 125 anything else.
func StartStatus(err error) int {
	switch {
	case errors.Is(err, reaper.ErrNotExecutable):
		return ExitNotExec
	case errors.Is(err, reaper.ErrNotFound), errors.Is(err, shellhook.ErrIsWrapper):
		return ExitNotFound
	}
	return ExitWrapper
}
