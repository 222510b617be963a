package ptyproxy

import (
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
)

// seenEvidence is the connection that last excused a silence, and the
// silence it excused (by the time of the output that began it).
type seenEvidence struct {
	conn    string
	silence time.Time
}

// noteEvidence logs a connection the watchdog has just seen stream a
// response in, once per silence and connection: the log says why a silent
// agent was not stopped.
func (l *loop) noteEvidence(now time.Time) {
	_, r := l.wd.Check(now)
	seen := seenEvidence{r.Evidence.Conn, now.Add(-r.Silence)}
	if seen.conn == "" || seen.conn == l.seen.conn && seen.silence.Equal(l.seen.silence) {
		return
	}
	l.seen = seen
	l.o.Log.Write(sessionlog.NewEvidence(r))
}
