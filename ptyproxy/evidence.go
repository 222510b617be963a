package ptyproxy

import (
	"strconv"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
)

// seenEvidence is what the log said excused the current silence (known by
// the time of the output that began it): each thing that earned it, and
// the active windows counted when last looked.
type seenEvidence struct {
	silence time.Time
	said    map[string]bool
	active  int
}

// noteEvidence logs what excuses the silence after a sample, once per
// silence for each thing that earns it: the work of the agent or of a
// process of its open call, that call's tool running, a response
// streaming in on the agent's connection, or a live peer's keep-alives
// while the model is waited on. The log says why a silent agent was not
// stopped, and by what.
func (l *loop) noteEvidence(now time.Time) {
	_, r := l.wd.Check(now)
	if silence := now.Add(-r.Silence); !silence.Equal(l.seen.silence) {
		l.seen = seenEvidence{silence: silence, said: map[string]bool{}}
	}
	e := r.Evidence
	if e.ActiveWindows > l.seen.active {
		l.seen.active = e.ActiveWindows
		if key := e.Worked + " " + strconv.Itoa(e.Pid); !l.seen.said[key] {
			l.seen.said[key] = true
			l.o.Log.Write(sessionlog.WorkEvidence(r, l.p.pid))
		}
	}
	if key := e.Earned + " " + e.Conn; e.Conn != "" && !l.seen.said[key] {
		l.seen.said[key] = true
		l.o.Log.Write(sessionlog.ConnEvidence(r))
	}
}
