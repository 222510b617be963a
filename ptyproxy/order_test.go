package ptyproxy

import (
	"context"
	"os"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/stream"
)

// TestStuckStdoutHoldsNoStderr: the agent writes a line to stdout, which
// takes nothing, then a line to stderr. The stderr line waits for the
// stdout line to be forwarded only for flushWait: it is passed on while
// stdout is still stuck. (The order kept, through the built binary, is
// TestStdoutBeforeStderr in the root package.)
func TestStuckStdoutHoldsNoStderr(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stdout := &stuckWriter{release: make(chan struct{}), stuck: make(chan struct{})}
	stderr := &output{}
	passed := make(chan struct{})
	stderr.onNL = func(line []byte) {
		if string(line) == "the stderr line" {
			close(passed)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := Run(ctx, Options{Path: self, Args: []string{fakeagent.Subcommand, "line", "x", "err", "the stderr line", "hang"},
			Env: agentEnv(), IO: IO{Stdout: stdout, Stderr: stderr}, Parse: stream.Parse, Thresholds: fast(), KillGrace: time.Second})
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	<-stdout.stuck
	select {
	case <-passed:
	case <-time.After(20 * flushWait): // Far more than flushWait, for a loaded machine.
		t.Errorf("the stderr line was held %v behind a stdout that takes nothing", 20*flushWait)
	}
	close(stdout.release)
	cancel()
	<-done
}
