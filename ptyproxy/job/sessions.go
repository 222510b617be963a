package job

import (
	"fmt"
	"os"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
)

// A Session is one session log at a glance.
type Session struct {
	ID         string `json:"id"` // "" when the agent never named its session
	Start      string `json:"start"`
	Outcome    string `json:"outcome"`
	DurationMS int64  `json:"duration_ms"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	LogPath    string `json:"log_path"`
}

// Sessions lists at most limit session logs in dir, newest first.
// running names the logs of attempts running in this process now.
func Sessions(dir string, limit int, running map[string]bool) []Session {
	var out []Session
	for _, p := range sessionlog.List(dir) {
		if len(out) == limit {
			break
		}
		t, err := sessionlog.Read(p, time.Hour)
		if err != nil {
			continue // Pruned, or renamed by its session id, since the listing.
		}
		out = append(out, sessionOf(t, running[p], time.Now()))
	}
	return out
}

// sessionOf summarizes one session log.
func sessionOf(t *sessionlog.Timeline, running bool, now time.Time) Session {
	si := Session{ID: t.SessionID, Start: t.Start.Format(time.RFC3339), LogPath: t.Path}
	end := now
	if !running {
		if fi, err := os.Stat(t.Path); err == nil {
			end = fi.ModTime()
		}
	}
	si.DurationMS = end.Sub(t.Start).Milliseconds()
	e := t.Exit
	if e != nil && !running {
		si.DurationMS = time.Duration(e.Duration).Milliseconds()
		si.ExitStatus = e.Status
	}
	switch {
	case running:
		si.Outcome = "running"
	case e == nil || e.Cause == "":
		// No exit record: a wrapper that was killed, or one still running
		// in another process.
		si.Outcome = "unfinished"
	case e.Cause == "hung" && t.Verdict != nil:
		si.Outcome = "hung (" + t.Verdict.Reason.Kind + ")"
	case e.Cause == "hung" || e.Cause == "cancelled" || e.Cause == "interrupted":
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
