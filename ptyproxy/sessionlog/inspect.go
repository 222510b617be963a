package sessionlog

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

	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
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
	// Start is the log's first record, to the millisecond: every offset
	// (at_ms, start_ms) is measured from it.
	Start   time.Time `json:"start"`
	Pid     int       `json:"pid,omitempty"` // the agent's
	Entries []Entry   `json:"entries"`
	Calls   []Call    `json:"tool_calls"`
	Notes   []Entry   `json:"notes,omitempty"` // warnings, config changes
	// Verdict is the hang or overdue reason, if the attempt ended so.
	Verdict *Verdict   `json:"verdict,omitempty"`
	Kills   []Entry    `json:"kills,omitempty"`
	Exit    *Ended     `json:"exit,omitempty"`
	Stopped *StoppedAt `json:"stopped_at,omitempty"`
	// Answer is the agent's final answer, as its events gave it.
	Answer string `json:"answer,omitempty"`

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
			h, rec, jerr := Decode(line)
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
			switch rec.(type) {
			case *NotifySent, *NotifyFailed:
				// Delivered beside the run: they may come after the exit.
			default:
				end = h.Time
			}
			switch r := rec.(type) {
			case *Command:
				t.Argv, t.Agent = r.Argv, r.Agent
				if p, err := stream.ProfileNamed(r.Agent); err == nil {
					t.parse = p.Parse
				}
			case *Start:
				t.Pid = r.Pid
			case *StartFailed:
				t.note(at, h.Msg, r.Error)
			case *EventLine:
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
			case *Stderr:
				stderr++
			case *HangDetected:
				t.Verdict = &Verdict{At: at, Kind: h.Msg, Reason: r.Reason}
			case *ExitOverdue:
				t.Verdict = &Verdict{At: at, Kind: h.Msg, Reason: r.Reason}
			case *Kill:
				t.Kills = append(t.Kills, Entry{At: at, What: r.Signal, Detail: targets(r.Pids)})
			case *AgentExited:
				code := r.Code
				t.exit(at).AgentCode, t.exit(at).Signal = &code, r.Signal
			case *Exit:
				e := t.exit(at)
				status := r.Status
				e.Cause, e.Status = r.Cause, &status
			case *Warning:
				t.note(at, h.Msg, r.Message)
			case *ConfigReloaded:
				t.note(at, h.Msg, reloadWords(r))
			case *ConfigError:
				t.note(at, h.Msg, r.Error)
			case *DownstreamClosed:
				t.note(at, h.Msg, r.Error)
			case *Leftovers:
				t.note(at, h.Msg, r.Message)
			case *OnHang:
				t.note(at, h.Msg, r.Command)
			case *OnHangFailed:
				t.note(at, h.Msg, r.Error)
			case *NotifySent:
				t.note(at, h.Msg, fmt.Sprintf("%s to %s", r.Event, r.Target))
			case *NotifyFailed:
				t.note(at, h.Msg, fmt.Sprintf("%s to %s: %s", r.Event, r.Target, r.Error))
			case *LogDropped:
				t.note(at, h.Msg, fmt.Sprintf("%d records", r.Records))
			case *Restart:
				t.note(at, h.Msg, r.Why)
			case *AgentErrorRecord:
				t.note(at, h.Msg, r.Kind+": "+r.Message)
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

func reloadWords(r *ConfigReloaded) string {
	var words []string
	for _, c := range r.Changed {
		words = append(words, c.Key+" "+c.Old+" → "+c.New)
	}
	return strings.Join(words, ", ")
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
func (t *Timeline) event(at, g, gapMark Millis, rec *EventLine, open map[string]int) {
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
			detail += " declares " + watchdog.Round(c.Timeout)
		}
	}
	for _, id := range ev.Ended {
		if i, ok := open[id]; ok {
			t.Calls[i].Duration = at - t.Calls[i].Start
			detail = fmt.Sprintf("%s %q after %s", t.Calls[i].Kind, t.Calls[i].Command, watchdog.Round(time.Duration(t.Calls[i].Duration)))
			delete(open, id)
		} else {
			detail = "a call that was not open"
		}
	}
	if ev.NotJSON {
		detail = fmt.Sprintf("%q", truncateText(string(raw), 60))
	}
	if n := len(t.Entries); n > 0 && detail == "" && g < gapMark {
		if prev := &t.Entries[n-1]; prev.What == what && prev.Detail == "" {
			prev.Count++
			return
		}
	}
	t.Entries = append(t.Entries, Entry{At: at, Gap: g, What: what, Count: 1, Detail: detail})
}

func truncateText(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Format writes the timeline for people. Gaps at least gap long are marked
// with "!" (and in bold when bold is set, for a terminal).
func (t *Timeline) Format(w io.Writer, gap time.Duration, bold bool) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("session  %s", orDash(t.SessionID))
	if t.Agent != "" || t.Model != "" {
		p("  (%s)", strings.Trim(strings.Join([]string{t.Agent, t.Model}, ", "), ", "))
	}
	p("\nstarted  %s", t.Start.UTC().Format("2006-01-02 15:04:05.000 MST"))
	if t.Cwd != "" {
		p("  in %s", t.Cwd)
	}
	p("\nlog      %s\n\n", t.Path)

	p("%10s %9s  %s\n", "at", "gap", "event")
	for _, e := range t.Entries {
		g := ""
		if e.Gap > 0 {
			g = watchdog.Round(time.Duration(e.Gap))
		}
		mark := " "
		if time.Duration(e.Gap) >= gap {
			mark = "!"
			if bold {
				g = "\x1b[1m" + g + "\x1b[0m"
				mark = "\x1b[1m!\x1b[0m"
			}
		}
		what := e.What
		if e.Count > 1 {
			what += fmt.Sprintf(" ×%d", e.Count)
		}
		if e.Detail != "" {
			what += "  " + e.Detail
		}
		p("%10s %9s%s %s\n", stamp(e.At), g, mark, what)
	}
	if len(t.Calls) > 0 {
		p("\ntool calls\n")
		p("  %-18s %-32s %9s  %s\n", "kind", "command", "declared", "ran")
		for _, c := range t.Calls {
			declared := "-"
			if c.Declared > 0 {
				declared = watchdog.Round(time.Duration(c.Declared))
			}
			ran := watchdog.Round(time.Duration(c.Duration))
			if c.Open {
				ran = "still open after " + ran
			}
			p("  %-18s %-32s %9s  %s\n", c.Kind, truncateText(strings.ReplaceAll(c.Command, "\n", " "), 32), declared, ran)
		}
	}
	for _, n := range t.Notes {
		p("\nnote     %s %s: %s", stamp(n.At), n.What, n.Detail)
	}
	if len(t.Notes) > 0 {
		p("\n")
	}
	if v := t.Verdict; v != nil {
		word := "hang (" + v.Reason.Kind + ")"
		if v.Kind == "exit_overdue" {
			word = "overdue"
		}
		p("\nverdict  %s at %s: %s\n", word, stamp(v.At), v.Reason.Describe())
	}
	for i, k := range t.Kills {
		label := "         "
		if i == 0 {
			label = "kill     "
		}
		p("%s%s %s to %s\n", label, stamp(k.At), k.What, k.Detail)
	}
	if e := t.Exit; e != nil {
		p("exit     ")
		if e.AgentCode != nil {
			if e.Signal != "" {
				p("agent killed by %s at %s", e.Signal, stamp(e.At))
			} else {
				p("agent exited %d at %s", *e.AgentCode, stamp(e.At))
			}
		}
		if e.Status != nil {
			p("; wrapper status %d (%s)", *e.Status, e.Cause)
		}
		p("; %s, %s, %s\n", count(e.Lines, "line"), count(e.ToolCalls, "tool call"), count(e.StderrLine, "stderr line"))
	}
	if t.Answer != "" {
		p("answer   %s\n", stream.FirstLine(t.Answer, 100))
	}
	if s := t.Stopped; s != nil {
		p("\nthe log stops at line %d: %s\n", s.Line, s.Error)
	}
}

// count writes n things: "1 tool call", "2 tool calls".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func stamp(d Millis) string { return fmt.Sprintf("+%.3fs", time.Duration(d).Seconds()) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
