package ptyproxy

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// The agent's stderr: passed on as it arrives, after the stdout written
// before it (order.go), each line logged by the loop, and what is left
// read at the end: all of what the agent wrote, as long as the wrapper's
// stderr takes some of it at least every Stall (stdout's rule).

// A stderrText is a line of the agent's stderr, or (whole unset) the
// start of one its writer paused after, stamped with the time it was
// read, as a batch of output is: the two arrive by separate ways, and
// which the agent wrote last is told by these times (asked.go). The read
// is stamped before the stdout written before it is waited for: output
// written after it and read meanwhile is stamped later.
type stderrText struct {
	text  []byte
	whole bool
	at    time.Time
}

// readStderr passes the agent's stderr on as it arrives, once what the
// agent wrote to stdout before it has been, and hands each line to the
// loop for the log (lines), until the loop abandons it; when the loop
// listens for questions, the unfinished line after each read too. Once the
// loop drains it (lastStderr), a read waits at most drainQuiet for more,
// and after drainMax only what the pipe held when the drain began is read.
func (l *loop) readStderr(lines chan<- stderrText, done chan<- struct{}, abandon <-chan struct{}) {
	defer close(done)
	defer close(lines)
	order := stdoutFirst{r: l.r, timer: l.clock.NewTimer(), clock: l.clock}
	var at time.Time
	send := func(text []byte, whole bool) {
		select {
		case lines <- stderrText{append([]byte(nil), text...), whole, at}:
		case <-abandon: // The loop reads no more: the line is not logged.
		}
	}
	split := stream.NewSplitter(64<<10, func(ln stream.Line) { send(ln.Text, true) })
	buf := make([]byte, 32<<10)
	var drained int64 // read since the copy saw the drain begin
	draining := false
	for {
		if until, ok := l.errs.drainUntil.get(); ok {
			if draining && drained >= l.errs.owed.Load() && time.Now().After(until) {
				split.Flush() // A stranger that keeps writing: what the agent wrote is read.
				return
			}
			draining = true
			// A file's deadline is kept by the kernel's poller, on the
			// system clock. Set before each read: a write that waited on
			// a slow stderr must not leave the next read's deadline past.
			_ = l.p.stderr.SetReadDeadline(time.Now().Add(drainQuiet))
		}
		n, err := l.p.stderr.Read(buf)
		if n > 0 {
			at = l.clock.Now()
			order.wait()
			if draining {
				drained += int64(n)
			}
			l.passStderr(buf[:n], abandon)
			split.Write(buf[:n])
			if split.MidLine() && l.o.Asks != nil {
				send(split.Pending(), false)
			}
		}
		if err != nil {
			split.Flush()
			return
		}
	}
}

// errCopy is what the copy of the agent's stderr and the loop share.
type errCopy struct {
	// writingSince is when, on the loop's clock, the write under way
	// began, none when none; pending the bytes read and not yet written.
	writingSince moment
	pending      atomic.Int64
	// drainUntil is when, on the system clock, the drain's reads may stop,
	// none until the drain; owed is what the pipe held when the drain
	// began: that much is read whatever the time.
	drainUntil moment
	owed       atomic.Int64
	// began has a value once a write began since the loop last looked.
	began chan struct{}
}

// passStderr writes p to the wrapper's stderr in pieces of drainPiece, so
// that a stderr that takes nothing at all can be told from a slow one.
// Nothing is dropped while it takes some; once the loop abandoned the
// copy, the rest is (it was counted then).
func (l *loop) passStderr(p []byte, abandon <-chan struct{}) {
	c := &l.errs
	c.pending.Store(int64(len(p)))
	for len(p) > 0 {
		select {
		case <-abandon:
			return
		default:
		}
		n := min(drainPiece, len(p))
		c.writingSince.set(l.clock.Now())
		select {
		case c.began <- struct{}{}:
		default: // The loop has yet to look at the last one.
		}
		_, _ = l.o.Stderr.Write(p[:n]) // Our stderr failing must not stop the agent.
		c.writingSince.clear()
		c.pending.Add(-int64(n))
		p = p[n:]
	}
}

// lastStderr passes on what is left of the agent's stderr once everything
// that held it is gone: what the pipe holds is read, and more as long as
// it comes within drainQuiet (for drainMax at most: a stranger may hold
// it), and written as long as the wrapper's stderr takes some of it at
// least every Stall. Given up on after that, the copy is abandoned, and a
// record says how much of the agent's stderr was not delivered; the exit
// status stands. abandon is closed, not sent on, so that the copy sees it
// too.
func (l *loop) lastStderr(done <-chan struct{}, abandon chan struct{}) {
	c := &l.errs
	c.owed.Store(Unread(l.p.stderr))
	c.drainUntil.set(time.Now().Add(drainMax))
	// A read under way on an empty pipe ends once the pipe has been quiet;
	// the copy sets the same deadline before each read from now on.
	_ = l.p.stderr.SetReadDeadline(time.Now().Add(drainQuiet))
	wait := l.clock.NewTimer()
	defer wait.Stop()
	for l.stderr != nil || done != nil {
		// While a write is under way, the loop wakes when it would have
		// taken nothing for Stall; the copy says when one begins.
		var stalled <-chan time.Time
		if since, ok := c.writingSince.get(); ok {
			at := since.Add(Stall)
			if !l.clock.Now().Before(at) {
				l.giveUpStderr(abandon)
				return
			}
			wait.Reset(at)
			stalled = wait.C()
		} else {
			wait.Stop()
		}
		select {
		case line, ok := <-l.stderr:
			if !ok {
				l.stderr = nil
				continue
			}
			l.onStderr(line, l.clock.Now())
		case <-done:
			done = nil
		case <-c.began:
		case <-stalled:
		}
	}
}

// giveUpStderr abandons the copy of the agent's stderr to a wrapper's
// stderr that has taken nothing for Stall, and records how much of the
// agent's stderr is not delivered: what the copy holds, and what is left
// in the pipe.
func (l *loop) giveUpStderr(abandon chan struct{}) {
	close(abandon)
	lost := l.errs.pending.Load() + Unread(l.p.stderr)
	l.o.Log.Write(sessionlog.StderrDropped{Bytes: lost,
		Error: fmt.Sprintf("stderr took nothing for %s after the agent exited; %d bytes of the agent's stderr were not delivered", Stall, lost)})
}

// Unread is how many bytes f, a pipe's read end (or a socket), holds
// unread: 0 when it cannot tell.
func Unread(f *os.File) int64 {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), fionread) })
	return int64(n)
}
