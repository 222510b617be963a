package job

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"cursor-wrap/ptyproxy"
)

func TestStatus(t *testing.T) {
	t.Parallel()
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
		{"overdue", ptyproxy.Outcome{Cause: ptyproxy.Overdue, Done: true, ExitCode: -1, ExitSignal: syscall.SIGTERM}, 0},
		{"interrupted", ptyproxy.Outcome{Cause: ptyproxy.Interrupted, Signal: syscall.SIGINT}, 130},
		{"stdout gone", ptyproxy.Outcome{Cause: ptyproxy.Downstream}, 141},
	} {
		if got := Status(tc.out); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
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
