package ptyproxy

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/stream"
)

// TestStuckStdoutHoldsNoStderr: the agent writes a line to stdout, which
// takes nothing, then a line to stderr. The stderr line waits for the
// stdout line to be forwarded only for flushWait: it is passed on while
// stdout is still stuck. (The order kept, through the built binary, is
// TestStdoutBeforeStderr in scripts/e2e.)
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

// TestFlushForwardsWhatWasWritten: once a write to the PTY's slave has
// returned, a flush forwards every byte of it, whatever its size (1 B to
// 200 KB, more than the tty layer holds): a read of the master that finds
// nothing first takes what the tty layer still has to hand over. The
// flush's bound is on a clock that does not move, so a loaded machine
// cannot make it give up.
func TestFlushForwardsWhatWasWritten(t *testing.T) {
	t.Parallel()
	master, slave := rawPTY(t)
	var out counter
	r := newReader(master, &out, systemClock{})
	go r.run()
	go func() { // The loop's part: each batch goes back at once.
		for {
			select {
			case b := <-r.batches:
				r.free <- b
			case <-r.flush.ended:
				return
			}
		}
	}()
	clock := newFakeClock(time.Now())
	order := stdoutFirst{r: r, timer: clock.NewTimer(), clock: clock}
	buf := make([]byte, 200_000)
	var written int64
	for i := range 300 {
		n := 1 + i*7919%len(buf)
		if _, err := slave.Write(buf[:n]); err != nil {
			t.Fatal(err)
		}
		written += int64(n)
		order.wait()
		if got := out.n.Load(); got != written {
			t.Fatalf("write %d of %d bytes: %d bytes forwarded of the %d written", i, n, got, written)
		}
	}
	slave.Close()
	if err := <-r.done; err != nil {
		t.Fatal(err)
	}
}

// counter is a stdout that counts what it is given.
type counter struct{ n atomic.Int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return len(p), nil
}
