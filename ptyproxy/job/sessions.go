package job

import (
	"fmt"
	"os"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/sessionlog/timeline"
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
		t, err := timeline.Read(p, time.Hour)
		if err != nil {
			continue // Pruned, or renamed by its session id, since the listing.
		}
		si := sessionOf(t, running[p], time.Now())
		if hungOnly && !si.Hung {
			continue
		}
		out = append(out, si)
	}
	return out
}

// sessionOf summarizes one session log.
func sessionOf(t *timeline.Timeline, running bool, now time.Time) Session {
	si := Session{ID: t.SessionID, Start: t.Start.Format(time.RFC3339), Agent: t.Agent, LogPath: t.Path}
	if p, err := stream.ProfileNamed(t.Agent); err == nil {
		si.Prompt = promptStart(p.Prompt(t.Argv))
	}
	if n := len(t.Usage); n > 0 {
		si.Usage = &t.Usage[n-1].UsageRecord
	}
	e := t.Exit
	if e == nil || e.Cause == "" {
		// No exit record: an attempt still running, here or in another
		// process (its writer holds the log), or a wrapper that was killed.
		running = running || sessionlog.Running(t.Path)
	}
	end := now
	if !running {
		if fi, err := os.Stat(t.Path); err == nil {
			end = fi.ModTime()
		}
	}
	// A file's time comes from the kernel's coarse clock, a few ms behind
	// the records' own: a run never ends before its last record ("-1ms").
	if n := len(t.Entries); n > 0 {
		if last := t.Start.Add(time.Duration(t.Entries[n-1].At)); last.After(end) {
			end = last
		}
	}
	si.DurationMS = max(end.Sub(t.Start), 0).Milliseconds()
	if e != nil && !running {
		si.DurationMS = time.Duration(e.Duration).Milliseconds()
		si.ExitStatus = e.Status
	}
	si.Hung = !running && e != nil && e.Cause == "hung"
	switch {
	case running:
		si.Outcome = "running"
	case t.Pid == 0 && startFailed(t):
		si.Outcome = "start failed"
	case e == nil || e.Cause == "":
		// Its agent is gone: the wrapper was killed (its agent dies with
		// it), or the machine stopped.
		si.Outcome = "unfinished"
	case si.Hung && t.Verdict != nil:
		si.Outcome = "hung (" + t.Verdict.Reason.Kind + ")"
	case e.Cause == ptyproxy.AwaitingPerson.String():
		si.Outcome = "waiting on a person"
	case e.Cause == ptyproxy.OverBudget.String():
		si.Outcome = "over budget"
	case si.Hung || e.Cause == "cancelled" || e.Cause == "interrupted":
		si.Outcome = e.Cause
	case e.Status != nil && *e.Status == 0:
		si.Outcome = "ok"
	case e.Status != nil:
		si.Outcome = fmt.Sprintf("failed (status %d)", *e.Status)
	default:
		si.Outcome = e.Cause
	}
	return si
}

func startFailed(t *timeline.Timeline) bool {
	for _, n := range t.Notes {
		if n.What == sessionlog.MsgStartFailed {
			return true
		}
	}
	return false
}
