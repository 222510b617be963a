package timeline

import (
	"fmt"
	"io"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// maxPrompt bounds the prompt that heads the timeline: its first line, cut.
const maxPrompt = 100

// Format writes the timeline for people. Gaps at least gap long are marked
// with "!" (and in bold when bold is set, for a terminal).
//
// Every string that comes from the log (the agent's words, a session id,
// a path, a cause) is shown through words.Display, the one rule for text
// that reaches a terminal: a log can hold whatever an agent wrote, an OSC
// that retitles the window or writes the clipboard among it.
func (t *Timeline) Format(w io.Writer, gap time.Duration, bold bool) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	d := words.Display
	if prompt := words.FirstLine(t.Prompt, maxPrompt); prompt != "" {
		p("prompt   %s\n", prompt)
	}
	p("session  %s", orDash(d(t.SessionID)))
	if t.Agent != "" || t.Model != "" {
		p("  (%s)", d(strings.Trim(strings.Join([]string{t.Agent, t.Model}, ", "), ", ")))
	}
	p("\nstarted  %s", t.Start.UTC().Format("2006-01-02 15:04:05.000 MST"))
	if t.Cwd != "" {
		p("  in %s", d(t.Cwd))
	}
	p("\nlog      %s\n\n", d(t.Path))

	p("%10s %9s  %s\n", "at", "gap", "event")
	for _, e := range t.Entries {
		g := ""
		if e.Gap > 0 {
			g = words.Duration(time.Duration(e.Gap))
		}
		// Padded before it is made bold: the escapes take no column.
		g = fmt.Sprintf("%9s", g)
		mark := " "
		if time.Duration(e.Gap) >= gap {
			mark = "!"
			if bold {
				g = "\x1b[1m" + g + "\x1b[0m"
				mark = "\x1b[1m!\x1b[0m"
			}
		}
		what := d(e.What)
		if e.Count > 1 {
			what += fmt.Sprintf(" ×%d", e.Count)
		}
		if e.Detail != "" {
			what += "  " + d(e.Detail)
		}
		p("%10s %s%s %s\n", stamp(e.At), g, mark, what)
	}
	if len(t.Calls) > 0 {
		p("\ntool calls\n")
		p("  %-18s %-32s %9s  %s\n", "kind", "command", "declared", "ran")
		for _, c := range t.Calls {
			declared := "-"
			if c.Declared > 0 {
				declared = words.Duration(time.Duration(c.Declared))
			}
			ran := words.Duration(time.Duration(c.Duration))
			if c.Open {
				ran = "still open after " + ran
			}
			p("  %-18s %-32s %9s  %s\n", words.Cut(d(c.Kind), 18), words.Cut(d(c.Command), 32), declared, ran)
		}
	}
	for _, n := range t.Notes {
		p("\nnote     %s %s: %s", stamp(n.At), d(n.What), d(n.Detail))
	}
	if len(t.Notes) > 0 {
		p("\n")
	}
	if v := t.Verdict; v != nil {
		p("\nverdict  %s at %s: %s\n", v.Word(), stamp(v.At), d(v.Reason.Describe()))
	}
	for i, k := range t.Kills {
		label := "         "
		if i == 0 {
			label = "kill     "
		}
		p("%s%s %s to %s\n", label, stamp(k.At), d(k.What), d(k.Detail))
	}
	if e := t.Exit; e != nil {
		p("exit     ")
		switch {
		case e.AgentCode != nil && e.Signal != "":
			p("agent killed by %s at %s", d(e.Signal), stamp(e.At))
		case e.AgentCode != nil:
			p("agent exited %d at %s", *e.AgentCode, stamp(e.At))
		case e.Cause == sessionlog.MsgStartFailed:
			p("agent not started at %s", stamp(e.At))
		}
		if e.Status != nil {
			p("; wrapper status %d (%s)", *e.Status, d(e.Cause))
		}
		p("; %s, %s, %s\n", count(e.Lines, "line"), count(e.ToolCalls, "tool call"), count(e.StderrLine, "stderr line"))
	}
	if n := len(t.Usage); n > 0 {
		last := t.Usage[n-1]
		p("usage    %s (%s, the last at %s)\n", last.Usage(), count(n, "report"), stamp(last.At))
	} else if t.Exit != nil {
		p("usage    not reported\n")
	}
	if t.Answer != "" {
		p("answer   %s\n", words.FirstLine(t.Answer, 100))
	}
	if s := t.Stopped; s != nil {
		p("\nthe log stops at line %d: %s\n", s.Line, d(s.Error))
	}
}

// Word names the verdict in a few words: "hang (idle)", "overdue",
// "waiting on a person"; shown through words.Display.
func (v *Verdict) Word() string {
	switch {
	case v.Kind == sessionlog.MsgExitOverdue:
		return "overdue"
	case v.Reason.Kind == watchdog.KindPerson:
		return "waiting on a person"
	case v.Reason.Kind == watchdog.KindBudget:
		return "over budget"
	case v.Reason.Kind == watchdog.KindDeadline:
		return "timed out (hard_timeout)" // a cap, not a hang
	}
	return "hang (" + words.Display(v.Reason.Kind) + ")"
}

// count writes n things: "1 tool call", "2 tool calls".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func stamp(d Millis) string { return words.Offset(time.Duration(d)) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
