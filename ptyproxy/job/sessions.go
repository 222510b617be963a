package job

import (
	"fmt"
	"os"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// A Session is one session log at a glance.
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
	Usage *sessionlog.UsageRecord `json:"usage,omitempty"`
}

// Sessions lists at most limit session logs in dir, newest first.
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
	for _, p := range sessionlog.List(dir) {
		if len(out) == limit {
			break
		}
		s, err := sessionlog.ReadSummary(p)
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

// sessionOf is one session log at a glance, from its summary.
func sessionOf(s sessionlog.Summary, running bool, now time.Time) Session {
	si := Session{ID: s.SessionID, Start: s.Start.Format(time.RFC3339), Agent: s.Command.Agent, LogPath: s.Path, Usage: s.Usage}
	if p, err := stream.ProfileNamed(s.Command.Agent); err == nil {
		si.Prompt = promptStart(p.Prompt(s.Command.Argv))
	}
	e := s.Exit
	if e == nil && s.StartFailed == nil {
		// No exit record: an attempt still running, here or in another
		// process (its writer holds the log), or a wrapper that was killed.
		running = running || sessionlog.Running(s.Path)
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
	si.Hung = !running && e != nil && e.Cause == "hung"
	switch {
	case running:
		si.Outcome = "running"
	case s.Pid == 0 && s.StartFailed != nil:
		si.Outcome = "start failed"
	case e == nil:
		// Its agent is gone: the wrapper was killed (its agent dies with
		// it), or the machine stopped.
		si.Outcome = "unfinished"
	case si.Hung && s.Hang != nil:
		si.Outcome = "hung (" + s.Hang.Reason.Kind + ")"
	case e.Cause == ptyproxy.AwaitingPerson.String():
		si.Outcome = "waiting on a person"
	case e.Cause == ptyproxy.OverBudget.String():
		si.Outcome = "over budget"
	case si.Hung || e.Cause == "cancelled" || e.Cause == "interrupted":
		si.Outcome = e.Cause
	case e.Status == 0:
		si.Outcome = "ok"
	default:
		si.Outcome = fmt.Sprintf("failed (status %d)", e.Status)
	}
	return si
}
