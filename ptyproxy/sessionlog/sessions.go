package sessionlog

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// A Session is one run at a glance, all its attempts told: a line of the
// sessions command, an entry of the MCP server's agent_sessions. A run is
// what the user started; a restart runs another attempt of it, with a
// log of its own.
type Session struct {
	Run string `json:"run,omitempty"` // its id; "" in logs written before runs had one
	// ID is the session the last attempt that named one named; "" when
	// the agent never named its session.
	ID     string `json:"id"`
	Start  string `json:"start"` // the first attempt's
	Agent  string `json:"agent,omitempty"`
	Prompt string `json:"prompt,omitempty"` // the first attempt's first words; "" when it came on stdin
	// Outcome, ExitStatus and LogPath are the last attempt's: how the run
	// ended.
	Outcome string `json:"outcome"`
	// DurationMS is from the first attempt's start to the last one's end,
	// the waits between them included.
	DurationMS int64  `json:"duration_ms"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	LogPath    string `json:"log_path"`
	Hung       bool   `json:"hung,omitempty"` // an attempt of it hung
	// Usage is what the agent reported it spent over the attempts (so
	// far, while one runs); absent when it reported nothing, which is not
	// 0.
	Usage    *UsageRecord `json:"usage,omitempty"`
	Attempts []Attempt    `json:"attempts"`
}

// An Attempt is one attempt of a run at a glance: one session log.
type Attempt struct {
	Number     int          `json:"attempt"`
	ID         string       `json:"id"`
	Start      string       `json:"start"`
	Outcome    string       `json:"outcome"`
	DurationMS int64        `json:"duration_ms"`
	ExitStatus *int         `json:"exit_status,omitempty"`
	LogPath    string       `json:"log_path"`
	Hung       bool         `json:"hung,omitempty"`
	Usage      *UsageRecord `json:"usage,omitempty"` // the attempt's own
	// Restart says why the attempt ran: what the one before it did, and
	// how this one went on; "" for the first.
	Restart string `json:"restart,omitempty"`
}

// Told is how the run ended, its restarts told: "ok after 2 attempts
// (hung (idle))".
func (s Session) Told() string {
	if len(s.Attempts) < 2 {
		return s.Outcome
	}
	before := make([]string, len(s.Attempts)-1)
	for i, a := range s.Attempts[:len(s.Attempts)-1] {
		before[i] = a.Outcome
	}
	return fmt.Sprintf("%s after %d attempts (%s)", s.Outcome, len(s.Attempts), strings.Join(before, ", "))
}

// A Query picks runs of a log dir: at most Limit, the newest first (by
// their first attempt's start), started since Since (zero for any), of
// Agent ("" for any), that hung (Hung).
type Query struct {
	Limit int
	Since time.Time
	Agent string
	Hung  bool
}

// Sessions lists the runs of dir q picks, newest first, each attempt read
// through its summary (never whole) and classed by Ending.Class, the
// attempts made runs by GroupRuns. running names the logs of attempts
// running in this process now.
func Sessions(dir string, q Query, running map[string]bool) []Session {
	var sums []Summary
	starts, all := 0, true
	for _, p := range List(dir) {
		if !q.Since.IsZero() && startOf(p) < q.Since.UnixMilli() {
			all = false
			break // Older logs, newest first: no run since began there.
		}
		if !q.Hung && starts >= q.Limit {
			// The runs that began before the newest Limit ones are older:
			// their attempts read from here on would not be listed.
			all = false
			break
		}
		s, err := ReadSummary(p)
		if err != nil {
			// Pruned, or renamed by its session id, since the listing;
			// or not a log.
			continue
		}
		sums = append(sums, s)
		if k := s.Key(); k.Number == 1 && (q.Agent == "" || k.Agent == q.Agent) {
			starts++
		}
	}
	now := time.Now()
	var out []Session
	slices.Reverse(sums) // Oldest first: logs started in one ms keep their names' order.
	runs := GroupRuns(sums, Summary.Key)
	for i := len(runs) - 1; i >= 0 && len(out) < q.Limit; i-- {
		run := runs[i]
		if !all && run[0].Key().Number > 1 {
			continue // Its first attempt was not read: it began earlier.
		}
		s := sessionOf(run, running, now)
		if (q.Agent == "" || s.Agent == q.Agent) && (!q.Hung || s.Hung) && !run[0].Start.Before(q.Since) {
			out = append(out, s)
		}
	}
	return out
}

// RunSession is the run whose attempts' logs are paths, first first, at a
// glance; the logs that do not read are left out.
func RunSession(paths []string) Session {
	var run []Summary
	for _, p := range paths {
		if s, err := ReadSummary(p); err == nil {
			run = append(run, s)
		}
	}
	if len(run) == 0 {
		return Session{}
	}
	return sessionOf(run, nil, time.Now())
}

// Hangs lists at most limit runs of dir in which an attempt hung, newest
// first.
func Hangs(dir string, limit int) []Session {
	return Sessions(dir, Query{Limit: limit, Hung: true}, nil)
}

// promptWords bounds the prompt's start shown in a sessions line or a
// notification.
const promptWords = 60

// PromptStart returns the first words of a prompt, on one line, as a
// terminal may show them.
func PromptStart(prompt string) string {
	return words.Cut(words.Display(prompt), promptWords)
}

// sessionOf is a run at a glance at now, from the summaries of its
// attempts, first first.
func sessionOf(run []Summary, running map[string]bool, now time.Time) Session {
	first := run[0]
	s := Session{Run: first.Command.Run, Start: first.Start.Format(time.RFC3339), Agent: first.Command.AgentName()}
	if p, err := stream.ProfileNamed(first.Command.Agent); err == nil {
		s.Prompt = PromptStart(p.Prompt(first.Command.Argv))
	}
	var usage *stream.Usage
	var end time.Time
	for _, sum := range run {
		a, ended := attemptOf(sum, running[sum.Path], now)
		s.Attempts = append(s.Attempts, a)
		s.Hung = s.Hung || a.Hung
		if a.ID != "" {
			s.ID = a.ID
		}
		if a.Usage != nil {
			u := a.Usage.Usage()
			if usage != nil {
				u = usage.Plus(u)
			}
			usage = &u
		}
		end = ended
	}
	last := s.Attempts[len(s.Attempts)-1]
	s.Outcome, s.ExitStatus, s.LogPath = last.Outcome, last.ExitStatus, last.LogPath
	s.DurationMS = max(end.Sub(first.Start.Truncate(time.Millisecond)), 0).Milliseconds()
	if usage != nil {
		s.Usage = new(UsageOf(*usage))
	}
	return s
}

// attemptOf is one attempt at a glance at now, from its summary, and
// when it ended (now while it runs).
func attemptOf(s Summary, running bool, now time.Time) (Attempt, time.Time) {
	a := Attempt{Number: s.Key().Number, ID: s.SessionID, Start: s.Start.Format(time.RFC3339), LogPath: s.Path, Usage: s.Usage, Restart: s.Restart}
	e := s.Exit
	if e == nil && s.StartFailed == nil {
		// No exit record: an attempt still running, here or in another
		// process (its writer holds the log), or a wrapper that was killed.
		running = running || Running(s.Path)
	}
	// Every offset is from the first record, to the millisecond.
	start := s.Start.Truncate(time.Millisecond)
	end := now
	if !running {
		if fi, err := os.Stat(s.Path); err == nil {
			end = fi.ModTime()
		}
	}
	// A file's time comes from the kernel's coarse clock, a few ms behind
	// the records' own: a run never ends before its last record ("-1ms").
	if s.End.After(end) {
		end = s.End
	}
	if e != nil && !running {
		end = s.End
		a.ExitStatus = &e.Status
	}
	if f := s.StartFailed; e == nil && f != nil && f.Status != 0 {
		end = s.End
		a.ExitStatus = &f.Status
	}
	end = maxTime(end, start)
	a.DurationMS = end.Sub(start).Milliseconds()
	category, kind := s.Ending().Class()
	a.Hung = !running && category == Hung
	switch {
	case running:
		a.Outcome = "running"
	case s.Pid == 0 && s.StartFailed != nil:
		a.Outcome = "start failed"
	case e == nil:
		// Its agent is gone: the wrapper was killed (its agent dies with
		// it), or the machine stopped.
		a.Outcome = "unfinished"
	case category == Hung && kind == watchdog.KindDeadline:
		a.Outcome = "timed out (hard_timeout)" // a cap, not a hang
	case category == Hung:
		a.Outcome = "hung (" + kind + ")"
	case category == Person:
		a.Outcome = "waiting on a person"
	case category == OverBudget:
		a.Outcome = "over budget"
	case category == Stopped:
		a.Outcome = e.Cause
	case category == Answered:
		a.Outcome = "ok"
	default:
		a.Outcome = fmt.Sprintf("failed (status %d)", e.Status)
	}
	return a, end
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
