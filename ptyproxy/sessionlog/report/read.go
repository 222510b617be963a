package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// An Attempt is what a report needs of one session log (one attempt of a
// run), found without decoding its event records.
type Attempt struct {
	Path   string
	Agent  string
	Run    string // the run's id; "" in a log written before runs had one
	Number int    // 1 for the first attempt of its run
	Start  time.Time
	// End is its exit record's time; zero without one.
	End  time.Time
	Exit *sessionlog.Exit
	// HangKind is the kind of its hang record's reason, and Budget the
	// budget it names when the run passed one; AgentError the kind of its
	// last agent error record; StartFailed: the agent never started.
	HangKind, Budget, AgentError string
	StartFailed                  bool
	// Usage is the running total it last logged; nil when its agent
	// reported nothing, which is not 0.
	Usage *stream.Usage
}

// ErrNotALog is a file that does not read as a session log.
var ErrNotALog = errors.New("not a cursor-wrap session log")

// The sizes that bound what one log costs. A command record holds the
// agent's argv and environment (a long prompt, within the kernel's
// ARG_MAX); the tail holds the exit record and the few records after it
// (notifications), and usually the hang and agent error records before.
const (
	maxHead  = 8 << 20
	tailSize = 32 << 10
	lineBuf  = 64 << 10
)

// ReadFile reads the attempt of the session log at path.
func ReadFile(path string) (Attempt, error) {
	f, err := os.Open(path)
	if err != nil {
		return Attempt{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Attempt{}, err
	}
	a, err := read(f, fi.Size())
	a.Path = path
	return a, err
}

// read reads an attempt from a log of size bytes: its first record, which
// says the agent and the attempt, then its tail for the records after the
// agent's output; only when the tail lacks one it needs does it scan the
// whole log, a line at a time, decoding only the records it needs.
func read(r io.ReaderAt, size int64) (Attempt, error) {
	var a Attempt
	var head struct {
		sessionlog.Header
		sessionlog.Command
	}
	dec := json.NewDecoder(io.NewSectionReader(r, 0, min(size, maxHead)))
	if err := dec.Decode(&head); err != nil || head.Msg != "command" {
		return a, ErrNotALog
	}
	a.Agent, a.Run, a.Number, a.Start = head.Agent, head.Run, max(head.Attempt, 1), head.Time

	start := max(size-tailSize, 0)
	tail := make([]byte, size-start)
	if _, err := r.ReadAt(tail, start); err != nil && !errors.Is(err, io.EOF) {
		return a, err
	}
	if start > 0 {
		// The first line of the tail is cut: begin after it.
		_, tail, _ = bytes.Cut(tail, []byte("\n"))
	}
	var found records
	for len(tail) > 0 {
		line, rest, whole := bytes.Cut(tail, []byte("\n"))
		tail = rest
		if err := found.take(line, whole); err != nil {
			return a, err
		}
	}
	if start > 0 && !found.complete() {
		found = records{}
		if err := found.scan(io.NewSectionReader(r, 0, size)); err != nil {
			return a, err
		}
	}
	found.fill(&a)
	return a, nil
}

// records are the few records of a log a report reads; the last of each.
type records struct {
	exit        *exitRecord
	usage       *sessionlog.UsageRecord
	hang        *sessionlog.HangDetected
	agentError  *sessionlog.AgentErrorRecord
	startFailed bool
}

// exitRecord is the exit record with its time.
type exitRecord struct {
	sessionlog.Header
	sessionlog.Exit
}

// complete reports whether they say all a report needs: how the attempt
// ended, and why when it hung, passed a budget or the agent failed.
func (f *records) complete() bool {
	e := f.exit
	switch {
	case e == nil:
		return false
	case e.Cause == "hung" || e.Cause == "over_budget":
		return f.hang != nil
	case e.Cause == "exited" && e.Status != 0:
		return f.agentError != nil
	}
	return true
}

func (f *records) fill(a *Attempt) {
	last := f.usage // A wrapper killed before its exit record.
	if e := f.exit; e != nil {
		a.End, a.Exit = e.Time, &e.Exit
		last = cmp.Or(e.Usage, last)
	}
	if last != nil {
		a.Usage = new(last.Usage())
	}
	if f.hang != nil {
		a.HangKind, a.Budget = f.hang.Reason.Kind, f.hang.Reason.Budget
	}
	if f.agentError != nil {
		a.AgentError = f.agentError.Kind
	}
	a.StartFailed = f.startFailed
}

// recordPrefix opens every record, as slog writes it: the time, then the
// level and the msg, within a few dozen bytes.
var recordPrefix = []byte(`{"time":"`)

// msgOf is the msg of a record line, found without decoding it; "" for a
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

// take reads line if it is a record a report needs. A line without its
// newline is the last of a log cut short: one that does not read is left.
func (f *records) take(line []byte, whole bool) error {
	switch msg := msgOf(line); string(msg) {
	case "exit":
		return decode(line, whole, msg, &f.exit)
	case sessionlog.MsgUsage:
		return decode(line, whole, msg, &f.usage)
	case sessionlog.MsgHangDetected:
		return decode(line, whole, msg, &f.hang)
	case "agent_error":
		return decode(line, whole, msg, &f.agentError)
	case sessionlog.MsgStartFailed:
		f.startFailed = true
	}
	return nil
}

// decode sets *into to the record on line, the msg record.
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

// scan reads every line of a log, keeping only the records take needs; a
// line longer than the buffer is skipped past, as none of those records is.
func (f *records) scan(r io.Reader) error {
	br := bufio.NewReaderSize(r, lineBuf)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			continue
		}
		whole := err == nil
		if len(line) > 0 {
			if err := f.take(bytes.TrimSuffix(line, []byte("\n")), whole); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
