// Package timeline reads a session log back for people, for the inspect and
// sessions commands: what the agent did and when, its tool calls, and what
// the wrapper decided.
package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// A Timeline is a session log read back for people: what the agent did,
// when, and what the wrapper decided.
type Timeline struct {
	Path      string   `json:"path"`
	SessionID string   `json:"session_id,omitempty"`
	Agent     string   `json:"agent,omitempty"`
	Model     string   `json:"model,omitempty"`
	Cwd       string   `json:"cwd,omitempty"`
	Argv      []string `json:"argv,omitempty"`
	// Prompt is the task the agent was given in its arguments, as the log
	// holds them (masked); "" when it came on stdin.
	Prompt string `json:"prompt,omitempty"`
	// Attempt counts the attempts of the run: 2 and on follow a restart.
	// Run is the same in every attempt of one run.
	Attempt int    `json:"attempt,omitempty"`
	Run     string `json:"run,omitempty"`
	// Start is the log's first record, to the millisecond: every offset
	// (at_ms, start_ms) is measured from it.
	Start   time.Time `json:"start"`
	Pid     int       `json:"pid,omitempty"` // the agent's
	Entries []Entry   `json:"entries"`
	Calls   []Call    `json:"tool_calls"`
	Notes   []Entry   `json:"notes,omitempty"` // warnings, config changes
	// Changes are the watchdog's verdicts as they changed, each with its
	// reason: the evidence that excused a silence is in them.
	Changes []Change `json:"verdicts,omitempty"`
	// Verdict is the hang or overdue reason, if the attempt ended so.
	Verdict *Verdict   `json:"verdict,omitempty"`
	Kills   []Entry    `json:"kills,omitempty"`
	Exit    *Ended     `json:"exit,omitempty"`
	Stopped *StoppedAt `json:"stopped_at,omitempty"`
	// Answer is the agent's final answer, as its events gave it.
	Answer string `json:"answer,omitempty"`
	// Usage is the running total of what the agent reported it spent, at
	// each change (the usage records); empty when it reported nothing.
	Usage []UsageAt `json:"usage,omitempty"`

	parse func(stream.Line) stream.Event // the agent's, from the command record
	reply stream.Reply
}

// An Entry is one row of the timeline: an event (or a run of events of one
// type), with its time since the start and the silence before it.
type Entry struct {
	At     Millis `json:"at_ms"`
	Gap    Millis `json:"gap_ms"`
	What   string `json:"what"`
	Count  int    `json:"count,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// A Call is one tool call: when it started and how long it ran.
type Call struct {
	ID       string `json:"call_id"`
	Kind     string `json:"kind"`
	Command  string `json:"command"`
	Declared Millis `json:"declared_ms"`
	Start    Millis `json:"start_ms"`
	Duration Millis `json:"duration_ms"` // until the end of the log if still open
	Open     bool   `json:"open"`
}

// A Verdict is how the attempt was judged at its end.
type Verdict struct {
	At     Millis          `json:"at_ms"`
	Kind   string          `json:"kind"` // hang_detected or exit_overdue
	Reason watchdog.Reason `json:"reason"`
}

// A Change is the watchdog's verdict changing to To.
type Change struct {
	At     Millis          `json:"at_ms"`
	To     string          `json:"to"`
	Reason watchdog.Reason `json:"reason"`
}

// Ended is how the attempt ended.
type Ended struct {
	At         Millis `json:"at_ms"`
	AgentCode  *int   `json:"agent_code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	Cause      string `json:"cause,omitempty"`
	Status     *int   `json:"status,omitempty"`
	Duration   Millis `json:"duration_ms"`
	ToolCalls  int    `json:"tool_calls"`
	Lines      int    `json:"lines"`
	StderrLine int    `json:"stderr_lines"`
}

// UsageAt is the running total of what the agent reported it spent, as
// of a time.
type UsageAt struct {
	At Millis `json:"at_ms"`
	sessionlog.UsageRecord
}

// Millis is a duration that JSON writes in whole milliseconds.
type Millis time.Duration

// MarshalJSON writes the duration in milliseconds.
func (m Millis) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, time.Duration(m).Milliseconds(), 10), nil
}

// StoppedAt says where a truncated or corrupt log stopped being readable.
type StoppedAt struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// Read reads a session log into a timeline. A log that is cut short or
// corrupt yields what could be read and where reading stopped.
func Read(path string, gap time.Duration) (*Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, gap), nil
}

func read(r io.Reader, path string, gap time.Duration) *Timeline {
	t := &Timeline{Path: path, Entries: []Entry{}, Calls: []Call{}}
	open := map[string]int{} // call id → index in Calls
	var last time.Time       // the last output
	var end time.Time
	var stderr, lines int
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			h, rec, jerr := sessionlog.Decode(line)
			if jerr != nil {
				t.Stopped = &StoppedAt{Line: n, Error: describeBad(line, err, jerr)}
				break
			}
			if t.Start.IsZero() {
				// Every offset is measured from the first record (the
				// command, written before the agent starts), to the
				// millisecond below it: records written before the start
				// record, and receive times kept in whole milliseconds,
				// then never come out negative, and all rows share one
				// origin.
				t.Start = h.Time.Truncate(time.Millisecond)
			}
			at := Millis(h.Time.Sub(t.Start))
			if !sessionlog.BesideRun(rec) {
				end = h.Time
			}
			if detail, ok := sessionlog.Note(rec); ok {
				t.note(at, h.Msg, detail)
			}
			switch r := rec.(type) {
			case *sessionlog.Command:
				t.Argv, t.Agent, t.Attempt, t.Run = r.Argv, r.AgentName(), r.Attempt, r.Run
				if p, err := stream.ProfileNamed(r.Agent); err == nil {
					t.parse, t.Prompt = p.Parse, p.Prompt(r.Argv)
				}
			case *sessionlog.Start:
				t.Pid = r.Pid
			case *sessionlog.EventLine:
				lines++
				recv := time.UnixMilli(r.RecvTS)
				if r.RecvTS == 0 {
					recv = h.Time
				}
				g := time.Duration(0)
				if !last.IsZero() {
					g = recv.Sub(last)
				}
				last = recv
				t.event(Millis(recv.Sub(t.Start)), Millis(g), Millis(gap), r, open)
			case *sessionlog.Stderr:
				stderr++
			case *sessionlog.VerdictChange:
				t.Changes = append(t.Changes, Change{At: at, To: r.To, Reason: r.Reason})
			case *sessionlog.HangDetected:
				t.Verdict = &Verdict{At: at, Kind: h.Msg, Reason: r.Reason}
			case *sessionlog.ExitOverdue:
				t.Verdict = &Verdict{At: at, Kind: h.Msg, Reason: r.Reason}
			case *sessionlog.Kill:
				t.Kills = append(t.Kills, Entry{At: at, What: r.Signal, Detail: targets(r.Pids)})
			case *sessionlog.AgentExited:
				code := r.Code
				t.exit(at).AgentCode, t.exit(at).Signal = &code, r.Signal
			case *sessionlog.StartFailed:
				if r.Status != 0 {
					status := r.Status
					e := t.exit(at)
					e.Cause, e.Status = h.Msg, &status
				}
			case *sessionlog.UsageRecord:
				t.Usage = append(t.Usage, UsageAt{At: at, UsageRecord: *r})
			case *sessionlog.Exit:
				e := t.exit(at)
				status := r.Status
				e.Cause, e.Status = r.Cause, &status
			}
		}
		if err != nil {
			if err != io.EOF {
				t.Stopped = &StoppedAt{Line: n, Error: err.Error()}
			}
			break
		}
	}
	for _, i := range open {
		t.Calls[i].Open = true
		t.Calls[i].Duration = Millis(end.Sub(t.Start)) - t.Calls[i].Start
	}
	if t.Exit != nil {
		t.Exit.Duration = Millis(end.Sub(t.Start))
		t.Exit.ToolCalls, t.Exit.Lines, t.Exit.StderrLine = len(t.Calls), lines, stderr
	}
	t.Answer = t.reply.String()
	return t
}

func (t *Timeline) note(at Millis, what, detail string) {
	t.Notes = append(t.Notes, Entry{At: at, What: what, Detail: detail})
}

func describeBad(line []byte, readErr, jsonErr error) string {
	if readErr == io.EOF {
		return "the last record is cut short (the log was being written or the disk filled)"
	}
	return "not a log record: " + jsonErr.Error()
}

func (t *Timeline) exit(at Millis) *Ended {
	if t.Exit == nil {
		t.Exit = &Ended{At: at}
	}
	return t.Exit
}

func targets(pids []int) string {
	var parts []string
	for _, p := range pids {
		if p < 0 {
			parts = append(parts, fmt.Sprintf("group %d", -p))
		} else {
			parts = append(parts, fmt.Sprintf("pid %d", p))
		}
	}
	return strings.Join(parts, ", ")
}

// event adds one output line: runs of events of one type and subtype that
// involve no tool call fold into one entry, unless a long gap splits them.
func (t *Timeline) event(at, g, gapMark Millis, rec *sessionlog.EventLine, open map[string]int) {
	raw := rec.Text()
	parse := t.parse
	if parse == nil {
		parse = stream.Parse
	}
	ev := parse(stream.Line{Text: raw, Len: int64(len(raw)), Newline: !rec.Partial})
	t.reply.Add(ev)
	what := ev.Label()
	if ev.Type == "system" && ev.Subtype == "init" {
		var init struct{ Model, Cwd string }
		_ = json.Unmarshal(raw, &init) // Best effort: the id is what matters.
		t.SessionID, t.Model, t.Cwd = ev.SessionID, init.Model, init.Cwd
	}
	detail := ""
	for _, c := range ev.Started {
		if _, ok := open[c.ID]; ok {
			continue
		}
		open[c.ID] = len(t.Calls)
		t.Calls = append(t.Calls, Call{ID: c.ID, Kind: c.Kind, Command: c.Command, Declared: Millis(c.Timeout), Start: at})
		detail = fmt.Sprintf("%s %q", c.Kind, c.Command)
		if c.Timeout > 0 {
			detail += " declares " + words.Duration(c.Timeout)
		}
	}
	for _, id := range ev.Ended {
		if i, ok := open[id]; ok {
			t.Calls[i].Duration = at - t.Calls[i].Start
			detail = fmt.Sprintf("%s %q after %s", t.Calls[i].Kind, t.Calls[i].Command, words.Duration(time.Duration(t.Calls[i].Duration)))
			delete(open, id)
		} else {
			detail = "a call that was not open"
		}
	}
	if ev.NotJSON {
		detail = fmt.Sprintf("%q", words.Cut(string(raw), 60))
	}
	if n := len(t.Entries); n > 0 && detail == "" && g < gapMark {
		if prev := &t.Entries[n-1]; prev.What == what && prev.Detail == "" {
			prev.Count++
			return
		}
	}
	t.Entries = append(t.Entries, Entry{At: at, Gap: g, What: what, Count: 1, Detail: detail})
}
