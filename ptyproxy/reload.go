package ptyproxy

import (
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/watchdog"
)

// thresholds are th as this attempt can apply them: the activity probe
// where /proc (or ps) tells the activity, the connections where the
// kernel tells them.
func (l *loop) thresholds(th watchdog.Thresholds) watchdog.Thresholds {
	th.ActivityProbe = l.probe
	th.ConnProbe = l.probe && l.conns
	return th
}

// onReload applies new thresholds to the running attempt: deadlines are
// recomputed from them at once, and a hang they make due is declared now.
func (l *loop) onReload(rl Reload, now time.Time) {
	if rl.Err != nil {
		l.o.Log.Write(sessionlog.ConfigError{Error: rl.Err.Error()})
		return
	}
	l.probe = rl.Thresholds.ActivityProbe && procAvailable()
	l.wd.SetThresholds(l.thresholds(rl.Thresholds))
	if rl.Tick > 0 {
		l.o.Tick = rl.Tick
	}
	if rl.KillGrace > 0 {
		l.o.KillGrace = rl.KillGrace
	}
	if rl.Record != nil {
		l.o.Log.Write(*rl.Record)
	}
	for _, w := range rl.Warnings {
		l.o.Log.Write(sessionlog.Warning{Message: w})
		l.o.Console.Warn(w)
	}
	if l.end.phase == Running {
		l.onTimer(now)
	}
}
