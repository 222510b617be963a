package timeline

import (
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
)

// Attempts returns t and the other attempts of its run, read from the logs
// beside t's, first attempt first: the run as sessionlog.RunOf groups it.
func (t *Timeline) Attempts(gap time.Duration) []*Timeline {
	var run []*Timeline
	for _, p := range sessionlog.RunOf(t.Path) {
		if p == t.Path {
			run = append(run, t)
			continue
		}
		if o, err := Read(p, gap); err == nil && !o.Start.IsZero() {
			run = append(run, o)
		}
	}
	return run
}
