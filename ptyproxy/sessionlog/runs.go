package sessionlog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A RunKey is what puts an attempt in its run, as its log says it.
type RunKey struct {
	Agent string
	// Run is the run's id, in every attempt's command record; "" in a log
	// written before runs had one.
	Run    string
	Number int // the attempt's number in its run, 1 for the first
	Start  time.Time
	// SessionID is the session the attempt's agent named, and Argv its
	// command line, which names the session a restart resumes.
	SessionID string
	Argv      []string
}

// Key is what puts the summary's attempt in its run.
func (s Summary) Key() RunKey {
	c := s.Command
	return RunKey{Agent: c.AgentName(), Run: c.Run, Number: max(c.Attempt, 1), Start: s.Start, SessionID: s.SessionID, Argv: c.Argv}
}

// GroupRuns groups attempts into runs, oldest run first, each run's
// attempts in the order they started. It is the one rule that makes runs
// of attempts: the session list, the report and inspect group by it.
// Attempts go together by the run id of their command records. An attempt
// of a log written before there was one (Run "") after the first joins
// the newest such run of its agent whose last attempt is the one before in
// number, preferring the run whose session its command line resumes. A
// run whose first attempts were pruned starts at its oldest remaining one.
func GroupRuns[A any](attempts []A, key func(A) RunKey) [][]A {
	attempts = slices.Clone(attempts)
	slices.SortStableFunc(attempts, func(a, b A) int { return key(a).Start.Compare(key(b).Start) })
	var runs [][]A
	byID := map[string]int{}
	for _, a := range attempts {
		k := key(a)
		at := -1
		switch {
		case k.Run != "":
			if i, ok := byID[k.Agent+"\x00"+k.Run]; ok {
				at = i
			}
		case k.Number > 1:
			at = earlier(runs, k, key)
		}
		if at < 0 {
			at = len(runs)
			runs = append(runs, nil)
			if k.Run != "" {
				byID[k.Agent+"\x00"+k.Run] = at
			}
		}
		runs[at] = append(runs[at], a)
	}
	return runs
}

// earlier finds the run an attempt without a run id continues: the
// newest of its agent, also without one, whose last attempt came just
// before it in number, the one whose session it resumes first; -1 for
// none.
func earlier[A any](runs [][]A, k RunKey, key func(A) RunKey) int {
	found := -1
	for i := len(runs) - 1; i >= 0; i-- {
		last := key(runs[i][len(runs[i])-1])
		if last.Agent != k.Agent || last.Run != "" || last.Number != k.Number-1 {
			continue
		}
		if resumes(k.Argv, last.SessionID) {
			return i
		}
		if found < 0 {
			found = i
		}
	}
	return found
}

// resumes reports whether an attempt's argv names session id: the resume
// argument ("--resume ID", "--resume=ID", "resume ID").
func resumes(argv []string, id string) bool {
	return id != "" && slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, id) })
}

// RunOf returns the logs of the attempts of the run that the attempt
// logged at path belongs to, read from the logs beside it (each through
// its summary), first attempt first; just path when it is not among
// them.
func RunOf(path string) []string {
	var sums []Summary
	found := false
	for _, p := range List(filepath.Dir(path)) {
		s, err := ReadSummary(p)
		if err != nil {
			continue
		}
		if sameFile(p, path) {
			s.Path, found = path, true
		}
		sums = append(sums, s)
	}
	if !found {
		return []string{path}
	}
	for _, run := range GroupRuns(sums, Summary.Key) {
		if slices.ContainsFunc(run, func(s Summary) bool { return s.Path == path }) {
			paths := make([]string, len(run))
			for i, s := range run {
				paths[i] = s.Path
			}
			return paths
		}
	}
	return []string{path}
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
