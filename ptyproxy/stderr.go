package ptyproxy

import (
	"time"

	"cursor-wrap/stream"
)

// The agent's stderr: passed on as it arrives, after the stdout written
// before it (order.go), each line logged by the loop, and what is left
// read at the end within a bound.

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
// listens for questions, the unfinished line after each read too.
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
	for {
		n, err := l.p.stderr.Read(buf)
		if n > 0 {
			at = l.clock.Now()
			order.wait()
			_, _ = l.o.Stderr.Write(buf[:n]) // Our stderr failing must not stop the agent.
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

// stderrWait bounds how long the end of an attempt waits for the agent's
// last stderr to be passed on.
const stderrWait = time.Second

// lastStderr passes on what is left of the agent's stderr once everything
// that held it is gone: what is in the pipe is read, then the read gives
// up rather than wait on a stranger. A wrapper's stderr that takes nothing
// must not keep the attempt open: the copy is abandoned after stderrWait.
// abandon is closed, not sent on, so that the copy sees it too.
func (l *loop) lastStderr(now time.Time, done <-chan struct{}, abandon chan struct{}) {
	// A file's deadline is kept by the kernel's poller, on the system clock.
	_ = l.p.stderr.SetReadDeadline(time.Now().Add(drainQuiet))
	wait := l.clock.NewTimer()
	wait.Reset(now.Add(stderrWait))
	defer wait.Stop()
	for l.stderr != nil || done != nil {
		select {
		case line, ok := <-l.stderr:
			if !ok {
				l.stderr = nil
				continue
			}
			l.onStderr(line, l.clock.Now())
		case <-done:
			done = nil
		case <-wait.C():
			close(abandon)
			return
		}
	}
}
