package mcpserver

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"cursor-wrap/stream"
)

// Bounds on what a result reports of the agent's output.
const (
	maxEvents     = 50      // last output lines
	maxEventBytes = 4 << 10 // of each line; the log has them whole
	maxStderr     = 8 << 10 // stderr tail
	// redactMargin more is kept of each, and cut once redacted, so that
	// no secret is cut before it is masked (one shorter than the margin).
	redactMargin = 4 << 10
)

// capture stands in for the wrapper's stdout: it keeps the last lines the
// agent wrote, when output last arrived, and what the last line was.
type capture struct {
	mu    sync.Mutex
	split *stream.Splitter
	lines []outputLine
	last  time.Time
	// event is the last line's "type/subtype" as the watchdog names it,
	// and eventAt when it came: fresher than the watchdog's snapshots,
	// which come on a change of open calls or verdict, or with the tick.
	event   string
	eventAt time.Time
	// onPhase is called when a line moves the agent to another phase, in
	// the words of its profile.
	onPhase func()
	profile *stream.Profile
}

func newCapture(profile *stream.Profile, onPhase func()) *capture {
	c := &capture{onPhase: onPhase, profile: profile}
	c.split = stream.NewSplitter(maxEventBytes+redactMargin, func(l stream.Line) {
		if len(c.lines) == maxEvents {
			c.lines = slices.Delete(c.lines, 0, 1)
		}
		c.lines = append(c.lines, outputLine{text: string(l.Text), len: l.Len})
	})
	return c
}

// An outputLine is a line as captured: its first maxEventBytes+redactMargin
// bytes, and its full length.
type outputLine struct {
	text string
	len  int64
}

// shown is the line as a client gets it: redacted, cut to maxEventBytes,
// and its full length said when any of it is left out. The length is
// added after the cut, so that the cut cannot take it off.
func (l outputLine) shown(redact func(string) string) string {
	text := redact(l.text)
	cut := cutBytes(text, maxEventBytes)
	if len(cut) < len(text) || l.len > int64(len(l.text)) {
		cut += fmt.Sprintf("… [%d bytes in all]", l.len)
	}
	return cut
}

// Write takes the agent's output. It never fails.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = time.Now()
	return c.split.Write(p)
}

// noteEvent notes each line's event as the output is read (Job.OnEvent).
func (c *capture) noteEvent(ev stream.Event) {
	if len(ev.Started) > 0 || len(ev.Ended) > 0 {
		// The watchdog's snapshot follows at once, with the calls.
		return
	}
	name := ev.Label()
	next := c.profile.Phase(name)
	c.mu.Lock()
	first, prev := c.event == "", c.profile.Phase(c.event)
	c.event, c.eventAt = name, time.Now()
	c.mu.Unlock()
	if first || next != prev {
		c.onPhase()
	}
}

// latest returns the last line's event and when it came, and when output
// last arrived.
func (c *capture) latest() (event string, eventAt, output time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.event, c.eventAt, c.last
}

// result returns the last lines (an unfinished last line included) and
// the time of the last output (zero if none). Call it once the agent is
// gone.
func (c *capture) result() (lines []outputLine, last time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.split.Flush()
	return slices.Clone(c.lines), c.last
}

// tail keeps the last bytes written to it: the agent's stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool // bytes were dropped from the front
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max - redactMargin; over > 0 {
		t.buf = t.buf[:copy(t.buf, t.buf[over:])]
		t.cut = true
	}
	return len(p), nil
}

// String returns the last max bytes once redact has masked them, from the
// first whole line kept, as valid UTF-8.
func (t *tail) String(redact func(string) string) string {
	t.mu.Lock()
	s, cut := redact(string(t.buf)), t.cut
	t.mu.Unlock()
	if over := len(s) - t.max; over > 0 {
		s, cut = s[over:], true
	}
	if i := strings.IndexByte(s, '\n'); cut && i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
