package job

import (
	"fmt"
	"strings"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
)

// Summary is the line that says how a run ended, for the console.
func Summary(r Result) string {
	out := r.Outcome
	s := fmt.Sprintf("session %s %s after %s", orNone(out.SessionID), outcomeWords(out), out.Ended.Sub(out.Started).Round(time.Millisecond))
	s += fmt.Sprintf("; %d tool calls; longest silence %s", out.ToolCalls, out.LongestSilence.Round(time.Millisecond))
	if len(out.SilenceOpen) > 0 {
		c := out.SilenceOpen[0]
		s += fmt.Sprintf(" (during %s %q)", c.Kind, c.Command)
	}
	if out.Answer != "" {
		s += fmt.Sprintf("; answer %q", stream.FirstLine(out.Answer, 60))
		if r.Model != "" {
			s += " from fallback model " + r.Model
		}
	}
	if n := len(out.Leftovers); n > 0 {
		verb := "stopped"
		if out.KeptLeftovers {
			verb = "left running"
		}
		s += fmt.Sprintf("; %s %d leftover %s: %s", verb, n, plural(n, "process", "processes"), strings.Join(out.Leftovers[:min(n, 3)], ", "))
		if n > 3 {
			s += ", …"
		}
	}
	if r.LogPath != "" {
		s += "; log " + r.LogPath
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// outcomeWords says in a few words how an attempt ended.
func outcomeWords(out ptyproxy.Outcome) string {
	switch out.Cause {
	case ptyproxy.Hung:
		return "hung (" + out.Reason.Kind + ") and was killed"
	case ptyproxy.Overdue:
		return "answered, did not exit, and was stopped"
	case ptyproxy.Interrupted:
		return "was interrupted by " + out.Signal.String()
	case ptyproxy.Downstream:
		return "was stopped because stdout failed"
	case ptyproxy.Cancelled:
		return "was cancelled"
	}
	switch {
	case out.ExitSignal != 0:
		return "was killed by " + out.ExitSignal.String()
	case !out.Done:
		return fmt.Sprintf("exited %d without a result", out.ExitCode)
	}
	return fmt.Sprintf("finished (exit %d)", out.ExitCode)
}

func orNone(s string) string {
	if s == "" {
		return "(no id)"
	}
	return s
}
