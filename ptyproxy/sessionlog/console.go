package sessionlog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"
)

// Console owns the wrapper's stderr: the agent's stderr passes through it,
// the wrapper's messages are written as lines starting "cursor-wrap: ", and
// a status line may be drawn below them. The status line is erased before
// anything else is written and redrawn by the next status update.
type Console struct {
	mu        sync.Mutex
	w         io.Writer
	tty       bool       // the status line is drawn only on a terminal
	width     func() int // the terminal's width, for truncation
	status    string     // the status line on screen, "" if none
	lineStart bool       // the last byte written ended a line
}

// NewConsole returns a Console writing to w. tty says whether w is a
// terminal; width reports its width (nil for 80).
func NewConsole(w io.Writer, tty bool, width func() int) *Console {
	if width == nil {
		width = func() int { return 80 }
	}
	return &Console{w: w, tty: tty, width: width, lineStart: true}
}

// Write passes the agent's stderr through unchanged.
func (c *Console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.erase()
	if len(p) > 0 {
		c.lineStart = p[len(p)-1] == '\n'
	}
	return c.w.Write(p)
}

// line writes one message line of the wrapper's own.
func (c *Console) line(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.erase()
	if !c.lineStart {
		// Never glue a message to a partial line of the agent's.
		b = append([]byte{'\n'}, b...)
	}
	_, _ = c.w.Write(b) // Nowhere left to report a failing stderr.
	c.lineStart = true
}

// Status draws s as the status line, truncated to the terminal's width.
// It does nothing unless the console is a terminal; "" erases it.
func (c *Console) Status(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tty || !c.lineStart {
		return
	}
	s = truncate(s, c.width()-1)
	if s == c.status {
		return
	}
	if s == "" {
		c.erase()
		return
	}
	fmt.Fprintf(c.w, "\r%s\x1b[K", s)
	c.status = s
}

func (c *Console) erase() {
	if c.status != "" {
		io.WriteString(c.w, "\r\x1b[K")
		c.status = ""
	}
}

func truncate(s string, width int) string {
	if width < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// Handler returns a slog.Handler that writes records at level or above as
// "cursor-wrap: message key=value …" lines. Put it behind a Redactor's
// Handler.
func (c *Console) Handler(level slog.Leveler) slog.Handler {
	return &consoleHandler{c: c, level: level}
}

type consoleHandler struct {
	c     *Console
	level slog.Leveler
	attrs []slog.Attr
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
	b.WriteString(rec.Message)
	write := func(a slog.Attr) bool {
		v := a.Value.Resolve().String()
		if strings.ContainsAny(v, " \t\n\"=") || v == "" {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, " %s=%s", a.Key, v)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	rec.Attrs(write)
	b.WriteByte('\n')
	h.c.line(b.Bytes())
	return nil
}

func (h *consoleHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &n
}

// WithGroup is not used by the wrapper; groups are flattened.
func (h *consoleHandler) WithGroup(string) slog.Handler { return h }
