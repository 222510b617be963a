package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/stream"
)

// A Summary is what a session log says of its attempt at a glance: how it
// started, how it ended and what it spent. ReadSummary reads it from the
// log's two ends, never the whole log, so that listing, picking or counting
// runs costs as little for a log of 120 MB as for one of 2 KB.
type Summary struct {
	Path    string
	Command Command   // the first record
	Start   time.Time // the first record's time
	// Restart says why the attempt ran, from its restart record; "" for
	// a run's first attempt.
	Restart string
	// Pid is the agent's, from its start record; 0 when it never started.
	Pid int
	// SessionID is the first the agent named in the log's head, else in
	// its last window; "" when it named none there.
	SessionID string
	// End is the time of the last record about the run (a notification's
	// delivery, beside it, does not count); zero when there is none after
	// the first.
	End time.Time
	// Exit is the last exit record and ExitAt its time; nil for an attempt
	// still running, or whose wrapper was killed.
	Exit   *Exit
	ExitAt time.Time
	// Hang is the last hang record, AgentError the last agent error record
	// and StartFailed the agent's failed start: nil when there is none, or
	// none in the window read.
	Hang        *HangDetected
	AgentError  *AgentErrorRecord
	StartFailed *StartFailed
	// TelemetryFailed is the last record of traces or metrics the
	// collector did not take, written beside the run after its end.
	TelemetryFailed *TelemetryFailed
	// Usage is the running total last logged, the exit record's when it
	// has one; nil when the agent reported nothing, which is not 0.
	Usage *UsageRecord
}

// ErrNotALog is a file that does not read as a session log, or whose
// records a summary needs do not read.
var ErrNotALog = errors.New("not a cursor-wrap session log")

// The bounds on what a summary reads of one log. The first record holds
// the agent's argv and environment (a long prompt, within the kernel's
// ARG_MAX); the head after it, the agent's start and the event that names
// its session. The last window holds the exit record and the few records
// after it (notifications); when a record the exit implies is not in it
// (the hang record before an on_hang command's output, the agent error
// before the agent's last words), the window grows, up to maxWindow.
const (
	maxFirst   = 8 << 20
	headSize   = 64 << 10
	windowSize = 64 << 10
	maxWindow  = 4 << 20
)

// ReadSummary reads the summary of the session log at path: its first
// record, the head after it and a window at its end.
func ReadSummary(path string) (Summary, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return Summary{Path: path}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Summary{Path: path}, err
	}
	s, err := summarize(f, fi.Size())
	s.Path = path
	return s, err
}

// ReadCommand reads the first record of the session log at path, the
// command of its attempt, and nothing more.
func ReadCommand(path string) (*Command, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	first, _, err := firstLine(f, fi.Size())
	if err != nil {
		return nil, err
	}
	_, rec, err := Decode(first)
	if c, ok := rec.(*Command); ok && err == nil {
		return c, nil
	}
	return nil, ErrNotALog
}

// summarize reads a summary from a log of size bytes.
func summarize(r io.ReaderAt, size int64) (Summary, error) {
	first, end, err := firstLine(r, size)
	if err != nil {
		return Summary{}, err
	}
	h, rec, err := Decode(first)
	c, ok := rec.(*Command)
	if err != nil || !ok {
		return Summary{}, ErrNotALog
	}
	head := summary{Summary: Summary{Command: *c, Start: h.Time}}
	if p, err := stream.ProfileNamed(c.Agent); err == nil {
		head.parse = p.Parse
	}
	headEnd, err := head.head(r, end, size)
	if err != nil || headEnd >= size {
		return head.done(err)
	}
	for n := int64(windowSize); ; n *= 8 {
		s := head
		s.inWindow = true
		start := max(size-n, headEnd)
		if err := s.window(r, start, size); err != nil || start == headEnd || n >= maxWindow || s.complete() {
			return s.done(err)
		}
	}
}

// summary is a Summary as it is read.
type summary struct {
	Summary
	parse func(stream.Line) stream.Event // the agent's; nil for an agent this version does not know
	last  []byte                         // the last record about the run
	exit  *struct {
		Header
		Exit
	}
	inWindow   bool
	lastEvents [][]byte // the window's last event records
}

// lastEvents is how many of the window's last events may name the session.
const lastEvents = 8

// sessionIn returns the session an event record names, "" for none.
func (s *summary) sessionIn(line []byte) string {
	var e EventLine
	if s.parse == nil || json.Unmarshal(line, &e) != nil {
		return ""
	}
	raw := e.Text()
	return s.parse(stream.Line{Text: raw, Len: int64(len(raw)), Newline: !e.Partial}).SessionID
}

// firstLine returns a log's first line and the offset after it.
func firstLine(r io.ReaderAt, size int64) ([]byte, int64, error) {
	for n := min(size, headSize); ; n = min(size, n*8, maxFirst) {
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		if line, _, ok := bytes.Cut(buf, []byte("\n")); ok {
			return line, int64(len(line)) + 1, nil
		}
		if n == size || n == maxFirst {
			return nil, 0, ErrNotALog
		}
	}
}

// head reads the whole lines of the head, from offset from, and returns
// the offset after the last it read.
func (s *summary) head(r io.ReaderAt, from, size int64) (int64, error) {
	buf := make([]byte, min(size-from, headSize))
	if _, err := r.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return from, err
	}
	atEnd := from+int64(len(buf)) == size
	for len(buf) > 0 {
		line, rest, whole := bytes.Cut(buf, []byte("\n"))
		if !whole && !atEnd {
			break // Cut by the head's end: the window reads it.
		}
		if err := s.take(line, whole); err != nil {
			return from, err
		}
		from += int64(len(line)) + 1
		buf = rest
	}
	return from, nil
}

// window reads the records from start, which begins a line or falls
// inside one, to the end of the log.
func (s *summary) window(r io.ReaderAt, start, size int64) error {
	// From the byte before start: when it is a newline, start begins a
	// line, and cutting through the first newline drops nothing more.
	from := max(start-1, 0)
	buf := make([]byte, size-from)
	if _, err := r.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if start > 0 {
		_, buf, _ = bytes.Cut(buf, []byte("\n"))
	}
	for len(buf) > 0 {
		line, rest, whole := bytes.Cut(buf, []byte("\n"))
		buf = rest
		if err := s.take(line, whole); err != nil {
			return err
		}
	}
	return nil
}

// take reads a line if it holds a record the summary needs. A line without
// its newline is the last of a log cut short: when it does not read, it
// never was a record.
func (s *summary) take(line []byte, whole bool) error {
	msg := msgOf(line)
	if msg == nil {
		return nil
	}
	if k, ok := byMsg[string(msg)]; (!ok || !k.beside) && whole {
		s.last = line
	}
	switch string(msg) {
	case "start":
		if s.Pid == 0 {
			var r Start
			if json.Unmarshal(line, &r) == nil {
				s.Pid = r.Pid
			}
		}
	case "restart":
		var r Restart
		if json.Unmarshal(line, &r) == nil {
			s.Restart = r.Why
		}
	case msgEvent:
		switch {
		case s.SessionID != "":
		case s.inWindow:
			// The agent names its session last in its final event: the
			// last few are read when the head named none.
			s.lastEvents = append(s.lastEvents[max(len(s.lastEvents)-lastEvents+1, 0):], line)
		default:
			s.SessionID = s.sessionIn(line)
		}
	case "exit":
		return decode(line, whole, msg, &s.exit)
	case MsgUsage:
		return decode(line, whole, msg, &s.Usage)
	case MsgHangDetected:
		return decode(line, whole, msg, &s.Hang)
	case "agent_error":
		return decode(line, whole, msg, &s.AgentError)
	case MsgStartFailed:
		return decode(line, whole, msg, &s.StartFailed)
	case MsgTelemetryFailed:
		return decode(line, whole, msg, &s.TelemetryFailed)
	}
	return nil
}

// complete reports whether the records read say all a summary needs: how
// the attempt ended, and why when it hung, passed a budget or the agent
// failed (an exit record that says its attempt's number says why
// itself); without an end, what it spent so far.
func (s *summary) complete() bool {
	e := s.exit
	switch {
	case e == nil:
		return s.Usage != nil
	case e.Attempt > 0:
		return true
	case e.Cause == CauseHung || e.Cause == CauseBudget:
		return s.Hang != nil
	case e.Cause == CauseExited && e.Status != 0:
		return s.AgentError != nil
	}
	return true
}

// done finishes the summary.
func (s *summary) done(err error) (Summary, error) {
	for i := len(s.lastEvents) - 1; i >= 0 && s.SessionID == ""; i-- {
		s.SessionID = s.sessionIn(s.lastEvents[i])
	}
	if e := s.exit; e != nil {
		s.Exit, s.ExitAt = &e.Exit, e.Time
		if e.Usage != nil {
			s.Usage = e.Usage
		}
	}
	if s.last != nil {
		var h Header
		if json.Unmarshal(s.last, &h) == nil {
			s.End = h.Time
		}
	}
	return s.Summary, err
}

// recordPrefix opens every record, as slog writes it: the time, then the
// level and the msg, within a few dozen bytes.
var recordPrefix = []byte(`{"time":"`)

// msgOf is the msg of a record line, found without decoding it; nil for a
// line that is no record.
func msgOf(line []byte) []byte {
	if !bytes.HasPrefix(line, recordPrefix) {
		return nil
	}
	head := line[:min(len(line), 96)]
	_, after, ok := bytes.Cut(head, []byte(`","msg":"`))
	if !ok {
		return nil
	}
	msg, _, ok := bytes.Cut(after, []byte(`"`))
	if !ok {
		return nil
	}
	return msg
}

// decode sets *into to the msg record on line.
func decode[T any](line []byte, whole bool, msg []byte, into **T) error {
	v := new(T)
	if err := json.Unmarshal(line, v); err != nil {
		if !whole {
			return nil // Torn by a wrapper killed mid-write: the record never was.
		}
		return fmt.Errorf("%w: a %s record that does not read", ErrNotALog, msg)
	}
	*into = v
	return nil
}
