package job

import (
	"fmt"
	"strings"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// Summary is the line that says how a run of c ended, for the console:
// the whole run, its restarts told. A run watched for bytes only has no
// session, tool calls or result to speak of, so its line leaves them out.
func (c Command) Summary(r Result) string {
	out := r.Outcome
	calls, silence, open := out.ToolCalls, out.LongestSilence, out.SilenceOpen
	for _, o := range r.Before {
		calls += o.ToolCalls
		if o.LongestSilence > silence {
			silence, open = o.LongestSilence, o.SilenceOpen
		}
	}
	var s string
	if c.Mode == stream.Events {
		s = fmt.Sprintf("session %s %s; %s", orNone(out.SessionID), c.RunWords(r), count(calls, "tool call"))
	} else {
		s = "the agent " + c.RunWords(r)
	}
	if c.Mode == stream.Events {
		s += "; usage: " + words.Reported(r.Spent)
	}
	s += "; longest silence " + words.Duration(silence)
	if len(open) > 0 {
		call := open[0]
		s += fmt.Sprintf(" (during %s %q)", call.Kind, call.Command)
	}
	if out.Answer != "" {
		s += fmt.Sprintf("; answer %q", words.FirstLine(out.Answer, 60))
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

// RunWords says how a run ended, how long it took from its first
// attempt's start, and, when a restart ran, its attempts before the last:
// "finished (exit 0) after 5s over 2 attempts (attempt 1 hung (idle) and
// was killed after 3s)".
func (c Command) RunWords(r Result) string {
	out, started := r.Outcome, r.Started
	if len(r.Before) > 0 {
		started = r.Before[0].Started
	}
	s := fmt.Sprintf("%s after %s", c.outcomeWords(out), words.Duration(out.Ended.Sub(started)))
	if len(r.Before) == 0 {
		return s
	}
	before := make([]string, len(r.Before))
	for i, o := range r.Before {
		before[i] = fmt.Sprintf("attempt %d %s after %s", i+1, c.outcomeWords(o), words.Duration(o.Ended.Sub(o.Started)))
	}
	return fmt.Sprintf("%s over %d attempts (%s)", s, len(r.Before)+1, strings.Join(before, ", "))
}

// outcomeWords says in a few words how an attempt ended.
func (c Command) outcomeWords(out ptyproxy.Outcome) string {
	switch out.Cause {
	case ptyproxy.Hung:
		if out.Reason.Kind == watchdog.KindDeadline {
			return "timed out (hard_timeout) and was killed"
		}
		return "hung (" + out.Reason.Kind + ") and was killed"
	case ptyproxy.Overdue:
		return "answered, did not exit, and was stopped"
	case ptyproxy.AwaitingPerson:
		return "waited on a person and was stopped"
	case ptyproxy.OverBudget:
		return "passed a budget and was stopped (" + out.Reason.Describe() + ")"
	case ptyproxy.Interrupted:
		return "was interrupted by " + words.Signal(out.Signal)
	case ptyproxy.Downstream:
		return "was stopped because stdout failed"
	case ptyproxy.Cancelled:
		return "was cancelled"
	}
	switch {
	case out.ExitSignal != 0:
		return "was killed by " + words.Signal(out.ExitSignal)
	case c.Mode == stream.Events && !out.Done:
		return fmt.Sprintf("exited %d without a result", out.ExitCode)
	case c.Mode == stream.Events:
		return fmt.Sprintf("finished (exit %d)", out.ExitCode)
	}
	return fmt.Sprintf("exited %d", out.ExitCode)
}

// NextStep says what to do after a hang: the command that resumes the
// run headless (ResumeCommand, after typed), and inspect, the command that
// shows what happened ("" for none). It is "" for a run that did not hang.
func (c Command) NextStep(r Result, typed, prompt, inspect string) string {
	if r.Cause != ptyproxy.Hung {
		return ""
	}
	var steps []string
	switch p := c.Profile; {
	case p == nil:
	case r.SessionID == "" && c.Mode == stream.Events:
		steps = append(steps, "no session id was seen, so there is none to resume")
	case r.SessionID == "":
	case !p.CanResume():
		steps = append(steps, p.Name+" cannot resume a session by id")
	default:
		steps = append(steps, "resume with `"+c.ResumeCommand(typed, r.SessionID, prompt)+"`")
	}
	if inspect != "" {
		steps = append(steps, "see `"+inspect+"`")
	}
	return strings.Join(steps, "; ")
}

// ResumeCommand is the command line that resumes session id headless with
// prompt, as the user types it: typed, the words that started the run
// before the agent's arguments (the shell function's name in alias mode;
// the wrapper, its flags and "--" in direct mode), then the arguments the
// user gave with the prompt replaced by the agent's resume and prompt, so
// the output format, model and workspace stay the run's. The bare
// `agent --resume ID` would open the interactive agent.
func (c Command) ResumeCommand(typed, id, prompt string) string {
	return strings.TrimPrefix(typed+" "+ShellWords(c.Profile.Resume(c.Given, id, prompt)), " ")
}

// ShellWords writes args as a command line for a POSIX shell, each word
// quoted when it needs quotes.
func ShellWords(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell when it needs quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// count writes n things: "1 tool call", "2 tool calls".
func count(n int, thing string) string {
	return fmt.Sprintf("%d %s", n, plural(n, thing, thing+"s"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orNone(s string) string {
	if s == "" {
		return "(no id)"
	}
	return s
}
