// Package console owns the wrapper's stderr: the agent's stderr passing
// through, the wrapper's own messages, and the live status line, written by
// a goroutine of its own so that nothing the wrapper decides waits on it.
package console

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/words"
)

// Console owns the wrapper's stderr: the agent's stderr passes through it,
// the wrapper's messages are written as lines starting "cursor-wrap: ", and
// a status line may be drawn below them. The wrapper's own text reaches it
// only masked (redact.Masked); the agent's stderr is the agent's, as is.
// The status line is erased before anything else is written and redrawn
// by the next status update.
//
// # Never in the way
//
// Nothing the wrapper decides waits on stderr. Everything is written by the
// console's own goroutine, in order, from a bounded queue: a message that
// finds the messages' share of it full is dropped and counted (a blocked
// stderr costs words, never a kill); the agent's stderr waits for room
// instead, since it must not be lost, which blocks only the goroutine that
// copies it. The two have room of their own: the agent's stderr never
// takes the room of the wrapper's last words.
//
// # Nothing lost to a slow reader
//
// The queue is written in pieces, each making room as it goes, so a slow
// reader of stderr is told from one that takes nothing. Close waits for
// everything queued as long as stderr makes progress, and gives up only
// once it has taken nothing for the stall it is given (stdout's rule:
// ptyproxy.Stall), saying how much was not written.
type Console struct {
	tty   bool       // the status line is drawn only on a terminal
	width func() int // the terminal's width, for truncation

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []item
	queued  int     // bytes of the agent's stderr queued and not yet written
	said    int     // bytes of the wrapper's messages queued and not yet written
	status  *string // a status line to draw, the newest only
	dropped int     // messages dropped since the last note
	closed  bool
	closing bool // Close was called: a second call returns at once
	idle    bool // the writer is waiting for work (broadcast when it begins)
	held    bool // no status line is drawn (Hold)
	done    chan struct{}
	// progress is when the writer last took work or wrote a piece, in ns
	// since born: on the monotonic clock, so that a step of the wall clock
	// neither gives up on stderr early nor waits on it for hours.
	progress atomic.Int64
	born     time.Time

	// The writer's own state: what is on the screen.
	screen    sync.Mutex // held while writing to the terminal
	w         io.Writer
	shown     string // the status line on screen, "" if none
	lineStart bool   // the last byte written ended a line
	stdoutMid bool   // stdout, sharing the terminal, ended mid-line
}

type item struct {
	agent []byte        // the agent's stderr, as is
	line  redact.Masked // or a line of the wrapper's
}

// maxQueued bounds the agent's stderr that waits for stderr, and
// maxSaid the wrapper's messages: far more than a burst of them, little
// memory.
const (
	maxQueued = 256 << 10
	maxSaid   = 64 << 10
)

// piece is how much is written to stderr at a time: a pipe's atomic write,
// so that a reader that takes anything at all lets one through.
const piece = 4 << 10

// New returns a Console writing to w. tty says whether w is a
// terminal; width reports its width (nil for 80).
func New(w io.Writer, tty bool, width func() int) *Console {
	if width == nil {
		width = func() int { return 80 }
	}
	c := &Console{w: w, tty: tty, width: width, lineStart: true, done: make(chan struct{}), born: time.Now()}
	c.cond = sync.NewCond(&c.mu)
	c.moved()
	go c.run()
	return c
}

// Write passes the agent's stderr through unchanged. It waits for room in
// the queue, never for stderr itself once the bytes are queued.
func (c *Console) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.queued > 0 && c.queued+len(p) > maxQueued && !c.closed {
		c.cond.Wait()
	}
	if c.closed {
		return len(p), nil
	}
	c.push(item{agent: bytes.Clone(p)})
	return len(p), nil
}

// line queues one message line of the wrapper's own, or drops it when
// stderr is not keeping up.
func (c *Console) line(m redact.Masked) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.said+m.Len() > maxSaid {
		c.dropped++
		return
	}
	c.push(item{line: m})
}

func (c *Console) push(it item) {
	c.queue = append(c.queue, it)
	if it.agent != nil {
		c.queued += len(it.agent)
	} else {
		c.said += it.line.Len()
	}
	c.cond.Broadcast()
}

// written makes room for n bytes of an item written.
func (c *Console) written(agent bool, n int) {
	c.moved()
	c.mu.Lock()
	defer c.mu.Unlock()
	if agent {
		c.queued -= n
	} else {
		c.said -= n
	}
	c.cond.Broadcast()
}

// Status draws m as the status line, truncated to the terminal's width,
// with control characters taken out. It does nothing unless the console
// is a terminal; an empty one erases it. Only the newest status is drawn.
func (c *Console) Status(m redact.Masked) {
	if !c.tty {
		return
	}
	s := words.Cut(printable(m.String()), c.width()-1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = &s
	c.cond.Broadcast()
}

// Hold takes the status line down and draws none until Release: the
// wrapper is about to stop with its job (Ctrl-Z), and the shell writes on
// that line next. It waits at most wait for a stderr that does not take
// the erase.
func (c *Console) Hold(wait time.Duration) {
	c.mu.Lock()
	c.held, c.status = true, nil
	c.mu.Unlock()
	erased := make(chan struct{})
	go func() {
		c.screen.Lock()
		defer c.screen.Unlock()
		c.erase()
		close(erased)
	}()
	select {
	case <-erased:
	case <-time.After(wait):
	}
}

// Release lets the next status update draw the status line again.
func (c *Console) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = false
}

// isHeld is read by the writer with the screen held, so a status taken
// before Hold is never drawn after its erase.
func (c *Console) isHeld() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}

// Close writes what is queued, as long as stderr takes some of it at least
// every stall, then stops the console, and returns how many bytes it could
// not write (0 when it wrote them all). Later writes are dropped; a second
// Close returns 0 at once.
func (c *Console) Close(stall time.Duration) (unwritten int) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return 0
	}
	c.closing, c.closed = true, true
	c.cond.Broadcast()
	c.mu.Unlock()
	wait := time.NewTimer(stall)
	defer wait.Stop()
	for {
		c.mu.Lock()
		idle := c.idle
		c.mu.Unlock()
		// Busy, the writer has taken nothing since its last piece (or since
		// it took its work), however long before Close that was: a stall
		// already waited out is not waited for again.
		due := c.born.Add(time.Duration(c.progress.Load())).Add(stall)
		if idle {
			due = time.Now().Add(stall) // It wakes to take the last of the work, or ends.
		} else if !time.Now().Before(due) {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.queued + c.said
		}
		wait.Reset(time.Until(due))
		select {
		case <-c.done:
			return 0
		case <-wait.C:
		}
	}
}

// moved notes the writer's progress now.
func (c *Console) moved() { c.progress.Store(int64(time.Since(c.born))) }

// run writes the queue to stderr, in order, with the status line last.
func (c *Console) run() {
	defer close(c.done)
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && c.status == nil && c.dropped == 0 && !c.closed {
			if !c.idle {
				c.idle = true
				c.cond.Broadcast() // To whoever waits for all to be written.
			}
			c.cond.Wait()
		}
		if c.idle {
			c.moved() // Busy from now: no stall before.
		}
		c.idle = false
		if len(c.queue) == 0 && c.status == nil && c.dropped == 0 && c.closed {
			c.mu.Unlock()
			return
		}
		queue, status, dropped := c.queue, c.status, c.dropped
		c.queue, c.status, c.dropped = nil, nil, 0
		c.cond.Broadcast() // To whoever waits for the queue to be taken.
		c.mu.Unlock()

		c.screen.Lock()
		for _, it := range queue {
			c.erase()
			if it.agent != nil {
				// In pieces, each making room: the agent's stderr waits only
				// for the reader, never for the rest of the queue.
				for b := it.agent; len(b) > 0; b = b[min(piece, len(b)):] {
					c.write(b[:min(piece, len(b))])
					c.written(true, min(piece, len(b)))
				}
				continue
			}
			b := it.line.Bytes()
			if !c.lineStart || c.stdoutMid {
				// Never glue a message to a partial line.
				b = append([]byte{'\n'}, b...)
			}
			c.write(b)
			c.written(false, it.line.Len())
		}
		if dropped > 0 {
			c.erase()
			c.write(fmt.Appendf(nil, "cursor-wrap: warning: stderr was not keeping up; %d messages were dropped\n", dropped))
		}
		if status != nil && !c.isHeld() {
			c.draw(*status)
		}
		c.screen.Unlock()
	}
}

func (c *Console) write(b []byte) {
	if len(b) == 0 {
		return
	}
	_, _ = c.w.Write(b) // Nowhere left to report a failing stderr.
	c.lineStart = b[len(b)-1] == '\n'
}

func (c *Console) draw(s string) {
	if !c.lineStart || c.stdoutMid || s == c.shown {
		return
	}
	if s == "" {
		c.erase()
		return
	}
	_, _ = fmt.Fprintf(c.w, "\r%s\x1b[K", s)
	c.shown = s
}

func (c *Console) erase() {
	if c.shown != "" {
		_, _ = io.WriteString(c.w, "\r\x1b[K")
		c.shown = ""
	}
}

// Stdout returns w, the wrapper's stdout, made to share the terminal with
// the console when both are the same terminal: the status line is erased
// before the agent's output is written, and not drawn while that output
// ends mid-line. Otherwise it returns w itself.
func (c *Console) Stdout(w io.Writer, sameTerminal bool) io.Writer {
	if !c.tty || !sameTerminal {
		return w
	}
	return sharedStdout{c, w}
}

type sharedStdout struct {
	c *Console
	w io.Writer
}

func (s sharedStdout) Write(p []byte) (int, error) {
	s.c.screen.Lock()
	defer s.c.screen.Unlock()
	s.c.erase()
	n, err := s.w.Write(p)
	if n > 0 {
		s.c.stdoutMid = p[n-1] != '\n'
	}
	return n, err
}

// printable returns s with control characters (escape sequences among
// them) and the bidirectional controls shown as Go escapes, so text from
// the agent cannot move the cursor, retitle the window, clear the screen
// or show itself in another order than it has (the characters
// words.Display blanks).
func printable(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			q := fmt.Sprintf("%q", string(r))
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hidden(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }

// Handler returns a slog.Handler that writes records at level or above as
// "cursor-wrap: message key=value …" lines, control characters shown as
// escapes, each line masked by secrets (nil: the secrets of a known shape
// only).
func (c *Console) Handler(level slog.Leveler, secrets *redact.Redactor) slog.Handler {
	return &consoleHandler{c: c, level: level, secrets: secrets}
}

type consoleHandler struct {
	c       *Console
	level   slog.Leveler
	secrets *redact.Redactor
	attrs   []slog.Attr
}

func (h *consoleHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *consoleHandler) Handle(_ context.Context, rec slog.Record) error {
	var b bytes.Buffer
	b.WriteString("cursor-wrap: ")
	switch {
	case rec.Level >= slog.LevelError:
		b.WriteString("error: ")
	case rec.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	}
	b.WriteString(printable(rec.Message))
	write := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		if strings.ContainsAny(v, " \t\n\"=") || v == "" {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, " %s=%s", a.Key, printable(v))
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	rec.Attrs(write)
	b.WriteByte('\n')
	h.c.line(h.secrets.Mask(b.Bytes()))
	return nil
}

func (h *consoleHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &n
}

// WithGroup is not used by the wrapper; groups are flattened.
func (h *consoleHandler) WithGroup(string) slog.Handler { return h }
