package ptyproxy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// A batch is what one read of the PTY brought, as it was forwarded: the
// time and the bytes. The read goes into the batch's own buffer, so
// handing it to the loop copies nothing; the loop cuts and parses lines.
type batch struct {
	at   time.Time
	data []byte // what was read, mended (raw1): buf[:n] unless mended
	buf  []byte // readSize bytes
	end  bool   // not a read: the stream ended, cut what is pending
}

// readSize is the most one batch takes: what a PTY holds when its reader
// is behind, many times over.
const readSize = 64 << 10

// batchPool bounds the batches in flight: the reader waits for the loop to
// give one back, so a slow loop slows the reader instead of growing memory.
const batchPool = 8

// reader copies the PTY master to the wrapper's stdout as bytes arrive and
// hands each read to the session loop. It does what any PTY forwarder
// must, and nothing more: latency is one read and one write, and the
// agent's next bytes wait for no parsing (the loop splits and parses, on
// the other core when there is one).
type reader struct {
	master *os.File        // outside Go's poller (see unpoll), nonblocking
	raw    syscall.RawConn // the master's descriptor, for coalesced reads
	out    io.Writer
	clock  Clock // the loop's: batches and writes are timed as it times

	batches chan *batch // to the loop
	free    chan *batch // back from the loop
	done    chan error  // nil at end of stream, else the read error

	// writingSince is when a stdout write began, none when none is under
	// way: a stalled reader downstream is not a hung agent.
	writingSince moment
	outErr       atomic.Pointer[error] // first stdout write error
	// The drain's bounds are the master's deadlines, on the system clock.
	drainUntil moment // when the drain ends at the latest; none before it begins
	deadline   moment // when a read with nothing to read ends; none for none

	// recooked counts the reads after which the PTY was found cooking its
	// output (stty sane), for the loop to say so; uncook is set while the
	// "\r" it added must still be taken out.
	recooked atomic.Int32
	uncook   bool

	flush flushes // stdout before stderr (order.go)
	readerOS
}

func newReader(master *os.File, out io.Writer, clock Clock) *reader {
	raw, _ := master.SyscallConn() // Fails only for a closed file.
	r := &reader{
		master:  master,
		raw:     raw,
		out:     out,
		clock:   clock,
		batches: make(chan *batch, batchPool),
		free:    make(chan *batch, batchPool),
		done:    make(chan error, 1),
		flush:   newFlushes(),
	}
	for range batchPool {
		r.free <- &batch{buf: make([]byte, readSize)}
	}
	return r
}

func (r *reader) run() {
	defer close(r.flush.ended)
	for {
		b := <-r.free
		n, err := r.read(b.buf)
		if n > 0 {
			r.take(b, n)
			if until, ok := r.drainUntil.get(); ok {
				// Keep draining while bytes come, within the drain's bound.
				r.setDeadline(earlier(time.Now().Add(drainQuiet), until))
			}
		} else {
			r.free <- b // Never blocks: it has room for every batch.
		}
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// A deadline stops a read before it looks: what the agent wrote
			// and a busy loop left unread is still in the PTY. Take it.
			r.takeBuffered()
		}
		// EIO is how Linux says every slave fd closed: the end, not an error.
		if errors.Is(err, syscall.EIO) || errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
			err = nil
		}
		r.done <- err
		return
	}
}

// read reads what the master holds, read after read, until it has nothing
// more right now or buf is full, waiting (wait) only while nothing came. A
// PTY hands out at most 4 KiB a read: taken one by one, each read would
// cost a stdout write, a batch and a wake-up of the session loop. Waiting
// for nothing extra, coalescing adds no latency.
//
// The master is outside Go's poller (see unpoll), so the loop runs inside
// Control: a Close of the master from another goroutine releases the
// descriptor only once the loop is out, so no other file can take its
// number while it is read. A passed deadline ends a read before it looks,
// as the poller's does, so a leftover process that never stops writing
// cannot keep the drain going past its bound. A read that finds the master
// empty, with nothing read before it, does the flushes asked before it
// looked (order.go).
func (r *reader) read(buf []byte) (n int, err error) {
	if d, ok := r.deadline.get(); ok && !time.Now().Before(d) {
		return 0, os.ErrDeadlineExceeded
	}
	defer func() {
		if err != nil {
			r.closeWait()
		}
	}()
	var rerr error
	cerr := r.raw.Control(func(fd uintptr) {
		if !r.waitOpen() {
			if rerr = r.openWait(int(fd)); rerr != nil {
				return
			}
		}
		woke := false // wait said the master was readable
		for n < len(buf) {
			asked := r.flush.asked.Load()
			m, err := syscall.Read(int(fd), buf[n:])
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				if n > 0 {
					return
				}
				r.flushed(asked)
				if woke {
					// Readable, yet nothing to read (poll(2) does that
					// with FreeBSD ptys, arcan#97): do not spin on it.
					time.Sleep(time.Millisecond)
				}
				var err error
				if woke, err = r.wait(int(fd)); err != nil {
					rerr = err
					return
				}
				continue
			case err != nil:
				rerr = err
				return
			case m == 0:
				rerr = io.EOF
				return
			}
			n += m
			woke = false
		}
	})
	if rerr != nil {
		return n, rerr
	}
	return n, cerr
}

// raw1 undoes what a PTY whose output processing an agent turned back on
// (stty sane) did to p: "\n" written as "\r\n". The terminal is set raw
// again at once; the read after the one that found it cooked is mended
// too, as it may hold bytes written before the reset. An agent's stream,
// JSON lines, never holds "\r\n" of its own.
func (r *reader) raw1(p []byte) []byte {
	cooked := false
	_ = r.raw.Control(func(fd uintptr) { cooked = outputCooked(int(fd)) })
	if cooked {
		r.recooked.Add(1)
	}
	if !cooked && !r.uncook {
		return p
	}
	r.uncook = cooked
	return bytes.ReplaceAll(p, []byte("\r\n"), []byte("\n"))
}

// take forwards the n bytes read into b and hands b to the loop.
func (r *reader) take(b *batch, n int) {
	b.data = r.raw1(b.buf[:n])
	r.forward(b.data)
	b.at = r.clock.Now()
	r.batches <- b
}

// maxBuffered bounds what is taken after the drain's deadline: what a
// PTY holds (a few KiB) many times over, not a stream a leftover process
// keeps writing.
const maxBuffered = 1 << 20

// takeBuffered takes what the master holds now, without waiting: a read
// through Control is not stopped by the deadline.
func (r *reader) takeBuffered() {
	for total := 0; total < maxBuffered; {
		b := <-r.free
		n := 0
		_ = r.raw.Control(func(fd uintptr) {
			for {
				m, err := syscall.Read(int(fd), b.buf)
				if err == syscall.EINTR {
					continue
				}
				n = max(m, 0)
				return
			}
		})
		if n == 0 {
			r.free <- b
			return
		}
		r.take(b, n)
		total += n
	}
}

// forward writes p to stdout. Once stdout fails (a reader that went away)
// the bytes are dropped, but reading goes on so the agent is never blocked
// while it is being stopped. After the agent's exit the bytes go in pieces
// of drainPiece, so that a stdout that takes nothing at all can be told
// from a slow one (see writingAt).
func (r *reader) forward(p []byte) {
	piece := len(p)
	if _, ok := r.drainUntil.get(); ok {
		piece = drainPiece
	}
	for len(p) > 0 && r.outErr.Load() == nil {
		n := min(piece, len(p))
		r.writingSince.set(r.clock.Now())
		_, err := r.out.Write(p[:n])
		r.writingSince.clear()
		if err != nil {
			r.outErr.Store(&err)
			return
		}
		p = p[n:]
	}
}

// drainPiece is a pipe's atomic write: a reader that takes anything at all
// lets one through.
const drainPiece = 4 << 10

// drainQuiet is how long the master may stay empty, after the agent
// exited, before what it wrote counts as read: its last bytes are already
// in the PTY buffer then, so a quiet master means a drained one.
const drainQuiet = 100 * time.Millisecond

// drainMax bounds the whole drain: a leftover process that keeps writing
// to the PTY must not keep the wrapper, or itself, alive.
const drainMax = 2 * time.Second

// drain makes the reader finish once the master has been quiet for
// drainQuiet, or at the latest after drainMax, even if a descendant of
// the agent still holds the PTY and writes to it.
func (r *reader) drain() {
	now := time.Now()
	r.drainUntil.set(now.Add(drainMax))
	r.setDeadline(now.Add(drainQuiet))
}

// writeBlocked reports whether a stdout write has been under way since
// before t.
func (r *reader) writeBlocked(t time.Time) bool {
	since, ok := r.writingSince.get()
	return ok && since.Before(t)
}

// writingAt returns when the stdout write under way began, zero if none:
// after the agent's exit, one that lasts is a stdout that takes nothing.
func (r *reader) writingAt() time.Time {
	since, _ := r.writingSince.get()
	return since
}

func (r *reader) stdoutErr() error {
	if p := r.outErr.Load(); p != nil {
		return *p
	}
	return nil
}
