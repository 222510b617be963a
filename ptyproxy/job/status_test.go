package job

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	direct := Command{Profile: stream.Cursor, Mode: stream.Events, Direct: true}
	for _, tc := range []struct {
		name string
		out  ptyproxy.Outcome
		want int
	}{
		{"answered", ptyproxy.Outcome{Done: true}, 0},
		{"answered, exit 3", ptyproxy.Outcome{Done: true, ExitCode: 3}, 3},
		{"no result, exit 0", ptyproxy.Outcome{}, 1},
		{"no result, exit 5", ptyproxy.Outcome{ExitCode: 5}, 5},
		{"killed by SIGSEGV", ptyproxy.Outcome{ExitCode: -1, ExitSignal: syscall.SIGSEGV}, 139},
		{"hang", ptyproxy.Outcome{Cause: ptyproxy.Hung, ExitCode: -1, ExitSignal: syscall.SIGTERM}, 124},
		{"over budget", ptyproxy.Outcome{Cause: ptyproxy.OverBudget, ExitCode: -1, ExitSignal: syscall.SIGTERM}, 86},
		{"overdue", ptyproxy.Outcome{Cause: ptyproxy.Overdue, Done: true, ExitCode: -1, ExitSignal: syscall.SIGTERM}, 0},
		{"interrupted", ptyproxy.Outcome{Cause: ptyproxy.Interrupted, Signal: syscall.SIGINT}, 130},
		{"stdout gone", ptyproxy.Outcome{Cause: ptyproxy.Downstream}, 141},
		{"stdout closed by its reader", ptyproxy.Outcome{Cause: ptyproxy.Downstream, StdoutErr: &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}}, 141},
		{"stdout failed", ptyproxy.Outcome{Cause: ptyproxy.Downstream, StdoutErr: syscall.ENOSPC}, 74},
		{"stdout not open for writing", ptyproxy.Outcome{Cause: ptyproxy.Downstream, StdoutErr: syscall.EBADF}, 74},
		{"stdout took nothing", ptyproxy.Outcome{Cause: ptyproxy.Downstream, StdoutErr: errors.New("stdout took nothing for 10s after the agent exited")}, 74},
		{"stdout failed, the agent exited 0", ptyproxy.Outcome{Cause: ptyproxy.Downstream, Done: true, StdoutErr: syscall.EIO}, 74},
	} {
		if got := direct.End(tc.out, 1, "r").Status; got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestStatusKeepsTheAgents checks that only a direct stream-json run turns
// an exit 0 without a result into 1: in alias mode, and with an output
// format that has no result to wait for, the agent's status stands.
func TestStatusKeepsTheAgents(t *testing.T) {
	t.Parallel()
	noResult := ptyproxy.Outcome{}
	for _, tc := range []struct {
		name string
		cmd  Command
		want int
	}{
		{"direct, stream-json", Command{Mode: stream.Events, Direct: true}, 1},
		{"direct, text", Command{Mode: stream.Bytes, Direct: true}, 0},
		{"alias, stream-json", Command{Mode: stream.Events}, 0},
		{"alias, text", Command{Mode: stream.Bytes}, 0},
	} {
		if got := tc.cmd.End(noResult, 1, "r").Status; got != tc.want {
			t.Errorf("%s, exit 0 without a result: status %d, want %d", tc.name, got, tc.want)
		}
		if got := tc.cmd.End(ptyproxy.Outcome{Cause: ptyproxy.Hung}, 1, "r").Status; got != ExitHang {
			t.Errorf("%s, hang: status %d", tc.name, got)
		}
		if got := tc.cmd.End(ptyproxy.Outcome{Cause: ptyproxy.OverBudget}, 1, "r").Status; got != ExitBudget {
			t.Errorf("%s, over budget: status %d", tc.name, got)
		}
	}
}

// TestStatusOfAQuestion: an agent that asked what only a person can
// answer gets 85 when the wrapper stopped it, in either mode; one that
// exited 0 with the question as its last words gets 85 in a direct run
// (a refusal, not a success) and keeps its 0 as the drop-in; one that
// failed keeps its own status.
func TestStatusOfAQuestion(t *testing.T) {
	t.Parallel()
	q := &stream.Question{Quote: "Do you trust this folder? [y/N]"}
	direct := Command{Mode: stream.Events, Direct: true}
	alias := Command{Mode: stream.Events}
	for _, tc := range []struct {
		name string
		cmd  Command
		out  ptyproxy.Outcome
		want int
	}{
		{"direct, stopped", direct, ptyproxy.Outcome{Cause: ptyproxy.AwaitingPerson, Question: q, ExitCode: -1, ExitSignal: syscall.SIGTERM}, ExitPerson},
		{"alias, stopped", alias, ptyproxy.Outcome{Cause: ptyproxy.AwaitingPerson, Question: q, ExitCode: -1, ExitSignal: syscall.SIGTERM}, ExitPerson},
		{"direct, exit 0 asking", direct, ptyproxy.Outcome{Question: q, Done: true}, ExitPerson},
		{"direct, exit 0 asking, no result", direct, ptyproxy.Outcome{Question: q}, ExitPerson},
		{"alias, exit 0 asking", alias, ptyproxy.Outcome{Question: q, Done: true}, 0},
		{"direct, exit 1 asking", direct, ptyproxy.Outcome{Question: q, ExitCode: 1}, 1},
		{"direct, exit 0 without a question", direct, ptyproxy.Outcome{Done: true}, 0},
	} {
		if got := tc.cmd.End(tc.out, 1, "r").Status; got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestStatusOfAgentErrors checks that a direct run that fails after the
// agent said why gets that reason's status, and that a run that succeeds
// anyway, or runs as the drop-in, keeps its own.
func TestStatusOfAgentErrors(t *testing.T) {
	t.Parallel()
	direct := Command{Mode: stream.Events, Direct: true}
	text := Command{Mode: stream.Bytes, Direct: true}
	alias := Command{Mode: stream.Events}
	for kind, want := range map[stream.ErrorKind]int{
		stream.RateLimit: 80, stream.Network: 81, stream.Quota: 82, stream.Auth: 83, stream.Update: 84,
	} {
		e := &stream.AgentError{Kind: kind}
		for _, tc := range []struct {
			name string
			cmd  Command
			out  ptyproxy.Outcome
			want int
		}{
			{"direct, exit 1", direct, ptyproxy.Outcome{ExitCode: 1, AgentError: e}, want},
			{"direct, exit 0 without a result", direct, ptyproxy.Outcome{AgentError: e}, want},
			{"direct, answered after it", direct, ptyproxy.Outcome{Done: true, AgentError: e}, 0},
			{"direct text, exit 0", text, ptyproxy.Outcome{AgentError: e}, 0},
			{"direct text, exit 1", text, ptyproxy.Outcome{ExitCode: 1, AgentError: e}, want},
			{"alias, exit 1", alias, ptyproxy.Outcome{ExitCode: 1, AgentError: e}, 1},
			{"direct, hang", direct, ptyproxy.Outcome{Cause: ptyproxy.Hung, AgentError: e}, ExitHang},
		} {
			if got := tc.cmd.End(tc.out, 1, "r").Status; got != tc.want {
				t.Errorf("%s, %s: status %d, want %d", kind, tc.name, got, tc.want)
			}
		}
	}
}

func TestStartStatus(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]int{
		fmt.Errorf("x: %w", reaper.ErrNotFound):      ExitNotFound,
		fmt.Errorf("x: %w", reaper.ErrNotExecutable): ExitNotExec,
		errors.New("anything else"):                  ExitWrapper,
	} {
		if got := StartStatus(err); got != want {
			t.Errorf("%v: %d, want %d", err, got, want)
		}
	}
}

// TestEnd: how an attempt ended is one value, its status with it: the
// cause by its log name, the kind within it, the signal by its name, the
// attempt and its run; and the one classifier reads it as the run's
// category.
func TestEnd(t *testing.T) {
	t.Parallel()
	direct := Command{Profile: stream.Cursor, Mode: stream.Events, Direct: true}
	alias := Command{Profile: stream.Cursor, Mode: stream.Events}
	question := &stream.Question{Quote: "Trust this workspace? [y/N]"}
	rateLimit := &stream.AgentError{Kind: stream.RateLimit, Restart: true}
	for _, tc := range []struct {
		name     string
		cmd      Command
		out      ptyproxy.Outcome
		want     End
		category string
	}{
		{"answered", direct, ptyproxy.Outcome{Done: true}, End{Cause: "exited"}, sessionlog.Answered},
		{"a hang", direct, ptyproxy.Outcome{Cause: ptyproxy.Hung, Reason: watchdog.Reason{Kind: watchdog.KindTool}, ExitCode: -1, ExitSignal: syscall.SIGTERM},
			End{Cause: "hung", Status: 124, Kind: "tool", Signal: "SIGTERM"}, sessionlog.Hung},
		{"over budget", direct, ptyproxy.Outcome{Cause: ptyproxy.OverBudget, Reason: watchdog.Reason{Kind: watchdog.KindBudget, Budget: "max_tokens"}},
			End{Cause: "over_budget", Status: 86, Kind: "max_tokens"}, sessionlog.OverBudget},
		{"interrupted", direct, ptyproxy.Outcome{Cause: ptyproxy.Interrupted, Signal: syscall.SIGINT, ExitCode: -1, ExitSignal: syscall.SIGINT},
			End{Cause: "interrupted", Status: 130, Signal: "SIGINT"}, sessionlog.Stopped},
		{"killed by a signal of its own", direct, ptyproxy.Outcome{ExitCode: -1, ExitSignal: syscall.SIGKILL}, End{Cause: "exited", Status: 137, Signal: "SIGKILL"}, sessionlog.Other},
		{"a direct run that exited 0 asking", direct, ptyproxy.Outcome{Question: question}, End{Cause: "exited", Status: 85, Kind: "question"}, sessionlog.Person},
		{"a drop-in run that exited 0 asking", alias, ptyproxy.Outcome{Question: question}, End{Cause: "exited"}, sessionlog.Answered},
		{"an agent of its own exiting 85", alias, ptyproxy.Outcome{ExitCode: 85}, End{Cause: "exited", Status: 85}, sessionlog.Other},
		{"waiting on a person", direct, ptyproxy.Outcome{Cause: ptyproxy.AwaitingPerson, Question: question}, End{Cause: "waiting_on_person", Status: 85}, sessionlog.Person},
		{"a rate limit", direct, ptyproxy.Outcome{ExitCode: 1, AgentError: rateLimit}, End{Cause: "exited", Status: 80, Kind: "rate_limit"}, sessionlog.AgentError},
		{"a rate limit, then an answer", direct, ptyproxy.Outcome{Done: true, AgentError: rateLimit}, End{Cause: "exited"}, sessionlog.Answered},
		{"stdout gone", direct, ptyproxy.Outcome{Cause: ptyproxy.Downstream}, End{Cause: "downstream_closed", Status: 141}, sessionlog.Other},
	} {
		tc.want.Attempt, tc.want.Run = 2, "r-1"
		got := tc.cmd.End(tc.out, 2, "r-1")
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if c, _ := (sessionlog.Ending{Exit: &sessionlog.Exit{End: got}}).Class(); c != tc.category {
			t.Errorf("%s: classed %s, want %s", tc.name, c, tc.category)
		}
	}
}
