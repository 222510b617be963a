package report

import (
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// An Attempt is what a report needs of one session log (one attempt of a
// run), read from its summary: never the whole log.
type Attempt struct {
	Path string
	// RunKey puts it in its run: its agent, run id, number and start.
	sessionlog.RunKey
	// End is its exit record's time; zero without one.
	End time.Time
	// Ending is how it ended: its exit record, and what older logs say
	// of it elsewhere.
	sessionlog.Ending
	// Usage is the running total it last logged; nil when its agent
	// reported nothing, which is not 0.
	Usage *stream.Usage
}

// ReadFile reads the attempt of the session log at path.
func ReadFile(path string) (Attempt, error) {
	s, err := sessionlog.ReadSummary(path)
	if err != nil {
		return Attempt{Path: path}, err
	}
	return attemptOf(s), nil
}

// attemptOf is the attempt a log's summary says.
func attemptOf(s sessionlog.Summary) Attempt {
	a := Attempt{Path: s.Path, RunKey: s.Key(), End: s.ExitAt, Ending: s.Ending()}
	if s.Usage != nil {
		a.Usage = new(s.Usage.Usage())
	}
	return a
}
