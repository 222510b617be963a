package ptyproxy

import (
	"fmt"
	"strings"
	"time"

	"cursor-wrap/watchdog"
)

// round formats a duration for people: "450ms", "12.3s", "1m23s".
func round(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// describe says in a sentence why a verdict was reached.
func describe(r watchdog.Reason) string {
	switch r.Kind {
	case watchdog.KindDeadline:
		return "the attempt reached its hard timeout of " + round(r.Threshold)
	case watchdog.KindExit:
		return "the agent printed its result but did not exit within " + round(r.Threshold)
	case watchdog.KindTool:
		var calls []string
		for _, c := range r.OpenCalls {
			calls = append(calls, fmt.Sprintf("%s %q ran %s of %s", c.Kind, c.Command, round(c.Elapsed), round(c.Budget)))
		}
		return "no output for " + round(r.Silence) + " and every open tool call is past its deadline (" + strings.Join(calls, "; ") + ")"
	}
	s := "no output for " + round(r.Silence) + " with no tool call running (idle timeout " + round(r.Threshold) + ")"
	if e := r.Evidence; e.Windows > 0 {
		s += fmt.Sprintf("; the agent's processes were idle (%.1f%% CPU, %.0f B/s read)", e.CPUPercent, e.ReadPerSec)
	}
	return s
}
