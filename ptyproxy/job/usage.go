package job

import (
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// spend adds an attempt's usage to the run's, and returns the run's so
// far, nil while no attempt reported any. Attempts add up: an agent that
// reports only at the end (Codex, Gemini CLI, cursor-agent) reports
// nothing from an attempt that hung, and Codex's resumed thread then
// reports what the whole thread spent.
func (j *Job) spend(attempt *stream.Usage) *stream.Usage {
	j.spent.Add(stream.Event{Usage: attempt, UsageScope: stream.UsageDelta})
	if !j.spent.Reported() {
		return nil
	}
	u := j.spent.Total()
	return &u
}

// Spent is what the agent reported it spent over a run, as a caller of
// the job is given it: the fields of the session log's usage record,
// which the exit record holds.
type Spent = sessionlog.UsageRecord

// SpentOf is a run's usage as a caller is given it, nil when the agent
// reported nothing (which is not 0).
func SpentOf(u *stream.Usage) *Spent {
	if u == nil {
		return nil
	}
	rec := sessionlog.UsageOf(*u)
	return &rec
}

// End is how a run ended, as its result carries it and its exit record
// holds it: sessionlog's End.
type End = sessionlog.End

// Session is one run at a glance, its attempts inside, as sessionlog
// lists them.
type Session = sessionlog.Session

// Sessions lists at most limit runs in dir, newest first, as sessionlog
// does; running names the logs of attempts running in this
// process now.
func Sessions(dir string, limit int, running map[string]bool) []Session {
	return sessionlog.Sessions(dir, sessionlog.Query{Limit: limit}, running)
}
