package report

import (
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// An Attempt is what a report needs of one session log (one attempt of a
// run), read from its summary: never the whole log.
type Attempt struct {
	Path   string
	Agent  string
	Run    string // the run's id; "" in a log written before runs had one
	Number int    // 1 for the first attempt of its run
	Start  time.Time
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
	c := s.Command
	a := Attempt{Path: s.Path, Agent: c.AgentName(), Run: c.Run, Number: max(c.Attempt, 1), Start: s.Start,
		End: s.ExitAt, Ending: s.Ending()}
	if s.Usage != nil {
		a.Usage = new(s.Usage.Usage())
	}
	return a
}
