package job

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
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
		{"stdout failed", ptyproxy.Outcome{Cause: ptyproxy.Downstream, StdoutErr: syscall.ENOSPC}, 74},
	} {
		if got := direct.Status(tc.out); got != tc.want {
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
		if got := tc.cmd.Status(noResult); got != tc.want {
			t.Errorf("%s, exit 0 without a result: status %d, want %d", tc.name, got, tc.want)
		}
		if got := tc.cmd.Status(ptyproxy.Outcome{Cause: ptyproxy.Hung}); got != ExitHang {
			t.Errorf("%s, hang: status %d", tc.name, got)
		}
		if got := tc.cmd.Status(ptyproxy.Outcome{Cause: ptyproxy.OverBudget}); got != ExitBudget {
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
		if got := tc.cmd.Status(tc.out); got != tc.want {
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
			if got := tc.cmd.Status(tc.out); got != tc.want {
				t.Errorf("%s, %s: status %d, want %d", kind, tc.name, got, tc.want)
			}
		}
	}
}

func TestStartStatus(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]int{
		fmt.Errorf("x: %w", ptyproxy.ErrNotFound):      ExitNotFound,
		fmt.Errorf("x: %w", ptyproxy.ErrNotExecutable): ExitNotExec,
		errors.New("anything else"):                    ExitWrapper,
	} {
		if got := StartStatus(err); got != want {
			t.Errorf("%v: %d, want %d", err, got, want)
		}
	}
}
