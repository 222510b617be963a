package timeline

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
)

// Attempts returns t and the other attempts of its run, read from the logs
// beside t's, first attempt first. Each attempt has a log of its own, and
// its command record the run's id. A log written before there was one is
// linked through the session a restart resumes: its command line names
// the session of the attempt before; a restart that could not resume (its
// agent named no session) then starts a run of its own.
func (t *Timeline) Attempts(gap time.Duration) []*Timeline {
	run := []*Timeline{t}
	logs := sessionlog.List(filepath.Dir(t.Path)) // newest first
	at := slices.IndexFunc(logs, func(p string) bool { return sameFile(p, t.Path) })
	if at < 0 {
		return run
	}
	if t.Run != "" {
		return t.sameRun(logs, at, gap)
	}
	// Earlier attempts: older logs, the one before named in this one's argv.
	for i, cur := at+1, t; i < len(logs) && cur.Attempt > 1; i++ {
		c := commandOf(logs[i])
		if c == nil || c.Attempt != cur.Attempt-1 || c.Agent != cur.Agent {
			continue
		}
		prev, err := Read(logs[i], gap)
		if err != nil || prev.Start.IsZero() || !resumes(cur.Argv, prev.SessionID) {
			continue
		}
		run = append([]*Timeline{prev}, run...)
		cur = prev
	}
	// Later attempts: newer logs that resume this one's session.
	for i, cur := at-1, t; i >= 0; i-- {
		c := commandOf(logs[i])
		if c == nil || c.Attempt != cur.Attempt+1 || c.Agent != cur.Agent || !resumes(c.Argv, cur.SessionID) {
			continue
		}
		next, err := Read(logs[i], gap)
		if err != nil || next.Start.IsZero() {
			continue
		}
		run = append(run, next)
		cur = next
	}
	return run
}

// sameRun reads the logs whose command record names t's run, by attempt.
func (t *Timeline) sameRun(logs []string, at int, gap time.Duration) []*Timeline {
	var run []*Timeline
	for i := len(logs) - 1; i >= 0; i-- { // oldest first
		if i == at {
			run = append(run, t)
			continue
		}
		if c := commandOf(logs[i]); c == nil || c.Run != t.Run {
			continue
		}
		if o, err := Read(logs[i], gap); err == nil && !o.Start.IsZero() {
			run = append(run, o)
		}
	}
	slices.SortStableFunc(run, func(a, b *Timeline) int { return cmp.Compare(a.Attempt, b.Attempt) })
	return run
}

// resumes reports whether an attempt's argv names session id: the resume
// argument ("--resume ID", "--resume=ID", "resume ID").
func resumes(argv []string, id string) bool {
	return id != "" && slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, id) })
}

// commandOf reads a log's first record, the command of its attempt; nil
// when it is not one.
func commandOf(path string) *sessionlog.Command {
	c, _ := sessionlog.ReadCommand(path)
	return c
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
