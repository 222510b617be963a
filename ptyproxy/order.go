package ptyproxy

import (
	"sync/atomic"
	"time"
)

// What the agent wrote first is passed on first. Its stdout (the PTY) and
// its stderr (a pipe) are read by goroutines of their own, and the PTY's
// way is the longer one: a line written to stdout and then one written to
// stderr may reach the stderr goroutine first. So before a stderr chunk is
// passed on, the stderr goroutine asks the reader for a flush (a number,
// and a wake-up of its wait) and waits until the reader says it found the
// master empty after the ask, everything read before having been
// forwarded. Every byte the agent wrote to the PTY before it wrote to
// stderr is then on stdout: on Linux a read of the master that finds
// nothing first waits for the tty layer's pending hand-over (n_tty's
// flush work; 3,000 writes of 1 B–200 KB to a raw slave, each followed by
// reads of the master until EAGAIN, got every byte), and on macOS the
// master reads the slave's output queue itself (BSD ptys; not measured).

// flushWait bounds the wait for a flush: a stdout that takes nothing, or a
// loop that takes no batch, must not hold the agent's stderr back for
// ever. After it the chunk is passed on anyway, out of order, and until
// the reader has caught up the chunks after it do not wait at all.
const flushWait = 250 * time.Millisecond

// flushes is the reader's side of the handshake.
type flushes struct {
	asked atomic.Uint64 // the last flush asked for
	done  atomic.Uint64 // the last flush done; written by the reader only
	acked chan struct{} // a flush was done (room for one: one asker)
	ended chan struct{} // closed when the reader ends: nothing is left to flush
}

func newFlushes() flushes {
	return flushes{acked: make(chan struct{}, 1), ended: make(chan struct{})}
}

// flushed says the flushes up to asked are done: asked was read before a
// read found the master empty, with everything read before it forwarded.
func (r *reader) flushed(asked uint64) {
	if asked <= r.flush.done.Load() {
		return
	}
	r.flush.done.Store(asked)
	select {
	case r.flush.acked <- struct{}{}:
	default: // The asker has yet to take the last one; it reads done.
	}
}

// A stdoutFirst holds back a stderr chunk until what the agent wrote to
// stdout before it has been forwarded (see flushWait for the bound). One
// goroutine uses it: the stderr copy.
type stdoutFirst struct {
	r     *reader
	timer Timer
	clock Clock
	late  uint64 // a flush given up on and not done yet; 0 for none
}

func (s *stdoutFirst) wait() {
	if s.late != 0 && s.r.flush.done.Load() < s.late {
		return // The reader is behind still: waiting again would not help.
	}
	s.late = 0
	seq := s.r.flush.asked.Add(1)
	s.r.wake()
	s.timer.Reset(s.clock.Now().Add(flushWait))
	defer s.timer.Stop()
	for s.r.flush.done.Load() < seq {
		select {
		case <-s.r.flush.acked:
		case <-s.r.flush.ended:
			return
		case <-s.timer.C():
			s.late = seq
			return
		}
	}
}
