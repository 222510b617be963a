package ptyproxy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"cursor-wrap/stream"
)

// A batch is what one read of the PTY brought: the time, how many bytes,
// and the lines it completed, parsed. Lines' text lives in data, so a batch
// costs no allocation once its buffers have grown.
type batch struct {
	at    time.Time
	bytes int
	lines []line
	data  []byte
}

type line struct {
	ev      stream.Event
	start   int // text is data[start:end]
	end     int
	len     int64 // full length, text may be a prefix
	newline bool
}

func (b *batch) text(l line) []byte { return b.data[l.start:l.end] }

// batchPool bounds the batches in flight: the reader waits for the loop to
// give one back, so a slow loop slows the reader instead of growing memory.
const batchPool = 8

// reader copies the PTY master to the wrapper's stdout as bytes arrive,
// then cuts and parses lines and hands them to the session loop. Writing
// comes first: latency is one read and one write, whatever the parsing
// costs.
type reader struct {
	master *os.File        // outside Go's poller (see unpoll), nonblocking
	raw    syscall.RawConn // the master's descriptor, for coalesced reads
	out    io.Writer
	parse  func(stream.Line) stream.Event // nil: bytes only, no events

	batches chan *batch // to the loop
	free    chan *batch // back from the loop
	done    chan error  // nil at end of stream, else the read error

	// writingSince is the Unix ns at which a stdout write began, 0 when
	// none is under way: a stalled reader downstream is not a hung agent.
	writingSince atomic.Int64
	outErr       atomic.Pointer[error] // first stdout write error
	drainUntil   atomic.Int64          // Unix ns the drain ends at the latest; 0 before it begins
	deadline     atomic.Int64          // Unix ns a read with nothing to read ends at; 0 for none
	midLine      atomic.Bool           // the stream ended inside a line

	// recooked counts the reads after which the PTY was found cooking its
	// output (stty sane), for the loop to say so; uncook is set while the
	// "\r" it added must still be taken out.
	recooked atomic.Int32
	uncook   bool

	cur   *batch
	split *stream.Splitter
	join  *stream.Joiner // nil when only bytes are watched

	readerOS
}

func newReader(master *os.File, out io.Writer, parse func(stream.Line) stream.Event) *reader {
	raw, _ := master.SyscallConn() // Fails only for a closed file.
	r := &reader{
		master:  master,
		raw:     raw,
		out:     out,
		parse:   parse,
		batches: make(chan *batch, batchPool),
		free:    make(chan *batch, batchPool),
		done:    make(chan error, 1),
	}
	for range batchPool {
		r.free <- &batch{}
	}
	if parse == nil {
		r.split = stream.NewSplitter(stream.DefaultKeep, func(l stream.Line) { r.addLine(l, stream.Event{}) })
	} else {
		// An event whose strings hold raw newlines spans several physical
		// lines: the joiner parses it as one.
		r.join = stream.NewJoiner(stream.DefaultKeep, parse, r.addLine)
		r.split = stream.NewSplitter(stream.DefaultKeep, r.join.Add)
	}
	return r
}

// addLine adds one logical line, parsed, to the current batch.
func (r *reader) addLine(l stream.Line, ev stream.Event) {
	b := r.cur
	start := len(b.data)
	b.data = append(b.data, l.Text...)
	b.lines = append(b.lines, line{ev: ev, start: start, end: len(b.data), len: l.Len, newline: l.Newline})
}

func (r *reader) run() {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.read(buf)
		if n > 0 {
			r.take(r.raw1(buf[:n]))
			if until := r.drainUntil.Load(); until != 0 {
				// Keep draining while bytes come, within the drain's bound.
				r.setDeadline(time.Unix(0, min(time.Now().Add(drainQuiet).UnixNano(), until)))
			}
		}
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// A deadline stops a read before it looks: what the agent wrote
			// and a busy loop left unread is still in the PTY. Take it.
			r.takeBuffered(buf)
		}
		r.midLine.Store(r.split.MidLine())
		if r.split.MidLine() || r.join != nil && r.join.Holding() {
			r.cur = <-r.free
			r.cur.at, r.cur.bytes = time.Now(), 0
			r.cur.lines, r.cur.data = r.cur.lines[:0], r.cur.data[:0]
			r.split.Flush()
			if r.join != nil {
				r.join.Flush()
			}
			r.batches <- r.cur
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
// cannot keep the drain going past its bound.
func (r *reader) read(buf []byte) (n int, err error) {
	if d := r.deadline.Load(); d != 0 && time.Now().UnixNano() >= d {
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
			m, err := syscall.Read(int(fd), buf[n:])
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				if n > 0 {
					return
				}
				if woke {
					// Readable, yet nothing to read (poll(2) does that
					// with FreeBSD ptys, arcan#97): do not spin on it.
					time.Sleep(time.Millisecond)
				}
				if err := r.wait(int(fd)); err != nil {
					rerr = err
					return
				}
				woke = true
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

// take forwards one read's bytes, then cuts and parses them into a batch
// for the loop.
func (r *reader) take(p []byte) {
	r.forward(p)
	r.cur = <-r.free
	r.cur.at, r.cur.bytes = time.Now(), len(p)
	r.cur.lines, r.cur.data = r.cur.lines[:0], r.cur.data[:0]
	r.split.Write(p)
	r.batches <- r.cur
}

// maxBuffered bounds what is taken after the drain's deadline: what a
// PTY holds (a few KiB) many times over, not a stream a leftover process
// keeps writing.
const maxBuffered = 1 << 20

// takeBuffered takes what the master holds now, without waiting: a read
// through Control is not stopped by the deadline.
func (r *reader) takeBuffered(buf []byte) {
	for total := 0; total < maxBuffered; {
		n := 0
		_ = r.raw.Control(func(fd uintptr) {
			for {
				m, err := syscall.Read(int(fd), buf)
				if err == syscall.EINTR {
					continue
				}
				n = max(m, 0)
				return
			}
		})
		if n == 0 {
			return
		}
		r.take(buf[:n])
		total += n
	}
}

// forward writes p to stdout. Once stdout fails (a reader that went away)
// the bytes are dropped, but reading goes on so the agent is never blocked
// while it is being stopped. After the agent's exit the bytes go in pieces
// of drainPiece, so that a stdout that takes nothing at all can be told
// from a slow one (see stalled).
func (r *reader) forward(p []byte) {
	piece := len(p)
	if r.drainUntil.Load() != 0 {
		piece = drainPiece
	}
	for len(p) > 0 && r.outErr.Load() == nil {
		n := min(piece, len(p))
		r.writingSince.Store(time.Now().UnixNano())
		_, err := r.out.Write(p[:n])
		r.writingSince.Store(0)
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
	r.drainUntil.Store(now.Add(drainMax).UnixNano())
	r.setDeadline(now.Add(drainQuiet))
}

// writeBlocked reports whether a stdout write has been under way since
// before t.
func (r *reader) writeBlocked(t time.Time) bool {
	since := r.writingSince.Load()
	return since != 0 && since < t.UnixNano()
}

// stalled reports whether one stdout write has been under way for d by
// now: after the agent's exit, a stdout that took nothing at all.
func (r *reader) stalled(now time.Time, d time.Duration) bool {
	since := r.writingSince.Load()
	return since != 0 && now.UnixNano()-since >= int64(d)
}

func (r *reader) stdoutErr() error {
	if p := r.outErr.Load(); p != nil {
		return *p
	}
	return nil
}
