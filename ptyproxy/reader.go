package ptyproxy

import (
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
	master *os.File
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
	draining     atomic.Bool
	midLine      atomic.Bool // the stream ended inside a line

	cur   *batch
	split *stream.Splitter

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
	r.split = stream.NewSplitter(stream.DefaultKeep, r.addLine)
	return r
}

func (r *reader) addLine(l stream.Line) {
	b := r.cur
	var ev stream.Event
	if r.parse != nil {
		ev = r.parse(l)
	}
	start := len(b.data)
	b.data = append(b.data, l.Text...)
	b.lines = append(b.lines, line{ev: ev, start: start, end: len(b.data), len: l.Len, newline: l.Newline})
}

func (r *reader) run() {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.read(buf)
		if n > 0 {
			r.forward(buf[:n])
			r.cur = <-r.free
			r.cur.at, r.cur.bytes = time.Now(), n
			r.cur.lines, r.cur.data = r.cur.lines[:0], r.cur.data[:0]
			r.split.Write(buf[:n])
			r.batches <- r.cur
			if r.draining.Load() {
				// Keep draining while bytes come; stop once none did for a while.
				r.setDeadline(time.Now().Add(drainQuiet))
			}
		}
		if err == nil {
			continue
		}
		r.midLine.Store(r.split.MidLine())
		if r.split.MidLine() {
			r.cur = <-r.free
			r.cur.at, r.cur.bytes = time.Now(), 0
			r.cur.lines, r.cur.data = r.cur.lines[:0], r.cur.data[:0]
			r.split.Flush()
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

// forward writes p to stdout. Once stdout fails (a reader that went away)
// the bytes are dropped, but reading goes on so the agent is never blocked
// while it is being stopped.
func (r *reader) forward(p []byte) {
	if r.outErr.Load() != nil {
		return
	}
	r.writingSince.Store(time.Now().UnixNano())
	_, err := r.out.Write(p)
	r.writingSince.Store(0)
	if err != nil {
		r.outErr.Store(&err)
	}
}

// drainQuiet is how long the master may stay empty, after the agent
// exited, before what it wrote counts as read: its last bytes are already
// in the PTY buffer then, so a quiet master means a drained one.
const drainQuiet = 100 * time.Millisecond

// drain makes the reader finish once the master has been quiet for
// drainQuiet, even if a descendant of the agent still holds the PTY.
func (r *reader) drain() {
	r.draining.Store(true)
	r.setDeadline(time.Now().Add(drainQuiet))
}

// writeBlocked reports whether a stdout write has been under way since
// before t.
func (r *reader) writeBlocked(t time.Time) bool {
	since := r.writingSince.Load()
	return since != 0 && since < t.UnixNano()
}

func (r *reader) stdoutErr() error {
	if p := r.outErr.Load(); p != nil {
		return *p
	}
	return nil
}
