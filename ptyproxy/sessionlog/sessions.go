package sessionlog

import (
	"fmt"
	"os"
	"time"

	"cursor-wrap/stream"
)

// A Session is one session log at a glance: a line of the sessions
// command, an entry of the MCP server's agent_sessions.
type Session struct {
	ID         string `json:"id"` // "" when the agent never named its session
	Start      string `json:"start"`
	Agent      string `json:"agent,omitempty"`
	Prompt     string `json:"prompt,omitempty"` // its first words; "" when it came on stdin
	Outcome    string `json:"outcome"`
	DurationMS int64  `json:"duration_ms"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	LogPath    string `json:"log_path"`
	Hung       bool   `json:"hung,omitempty"`
	// Usage is what the agent reported it spent in the attempt (so far,
	// while it runs); absent when it reported nothing, which is not 0.
	Usage *UsageRecord `json:"usage,omitempty"`
}

// Sessions lists at most limit session logs in dir, newest first, each
// read through its summary (never whole) and classed by Ending.Class.
// running names the logs of attempts running in this process now.
func Sessions(dir string, limit int, running map[string]bool) []Session {
	return sessions(dir, limit, running, false)
}

// Hangs lists at most limit sessions of dir that ended hung, newest first.
func Hangs(dir string, limit int) []Session {
	return sessions(dir, limit, nil, true)
}

func sessions(dir string, limit int, running map[string]bool, hungOnly bool) []Session {
	var out []Session
	for _, p := range List(dir) {
		if len(out) == limit {
			break
		}
		s, err := ReadSummary(p)
		if err != nil {
			// Pruned, or renamed by its session id, since the listing;
			// or not a log.
			continue
		}
		si := sessionOf(s, running[p], time.Now())
		if hungOnly && !si.Hung {
			continue
		}
		out = append(out, si)
	}
	return out
}

// promptWords bounds the prompt's start shown in a sessions line or a
// notification.
const promptWords = 60

// PromptStart returns the first words of a prompt, on one line, as a
// terminal may show them.
func PromptStart(prompt string) string {
	return stream.Cut(stream.Display(prompt), promptWords)
}

// sessionOf is one session log at a glance, from its summary, at now.
func sessionOf(s Summary, running bool, now time.Time) Session {
	si := Session{ID: s.SessionID, Start: s.Start.Format(time.RFC3339), Agent: s.Command.AgentName(), LogPath: s.Path, Usage: s.Usage}
	if p, err := stream.ProfileNamed(s.Command.Agent); err == nil {
		si.Prompt = PromptStart(p.Prompt(s.Command.Argv))
	}
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
	si.DurationMS = max(end.Sub(start), 0).Milliseconds()
	if e != nil && !running {
		si.DurationMS = max(s.End.Sub(start), 0).Milliseconds()
		si.ExitStatus = &e.Status
	}
	if f := s.StartFailed; e == nil && f != nil && f.Status != 0 {
		si.DurationMS = max(s.End.Sub(start), 0).Milliseconds()
		si.ExitStatus = &f.Status
	}
	category, kind := s.Ending().Class()
	si.Hung = !running && category == Hung
	switch {
	case running:
		si.Outcome = "running"
	case s.Pid == 0 && s.StartFailed != nil:
		si.Outcome = "start failed"
	case e == nil:
		// Its agent is gone: the wrapper was killed (its agent dies with
		// it), or the machine stopped.
		si.Outcome = "unfinished"
	case category == Hung:
		si.Outcome = "hung (" + kind + ")"
	case category == Person:
		si.Outcome = "waiting on a person"
	case category == OverBudget:
		si.Outcome = "over budget"
	case category == Stopped:
		si.Outcome = e.Cause
	case category == Answered:
		si.Outcome = "ok"
	default:
		si.Outcome = fmt.Sprintf("failed (status %d)", e.Status)
	}
	return si
}
