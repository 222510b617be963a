package ptyproxy

import (
	"fmt"
	"strconv"
	"time"

	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// An Activity is what an attempt is doing at an instant, in words: the
// status line, MCP progress and its hang warning all say it so.
type Activity struct {
	// Key names the phase ("starting", "waiting", "thinking", "writing",
	// "working", "tool N ID", "answered", "stopping", "exiting"): a new
	// key is news.
	Key  string
	Text string
	// FromStream is set when the words come from the agent's last line (no
	// tool call open, the attempt running and not answered): how long the
	// stream has been silent then says more.
	FromStream bool
}

// commandRunes bounds a tool call's command in an Activity.
const commandRunes = 60

// Activity says what the agent is doing at now, which may be later than
// the snapshot, as far as its stream tells in the words of its profile p
// (nil for an agent without one).
func (s Status) Activity(now time.Time, p *stream.Profile) Activity {
	r := s.Reason.MovedOn(now.Sub(s.Now))
	switch {
	case s.Phase == Stopping && s.Verdict == watchdog.Hang && r.Kind == watchdog.KindDeadline:
		return Activity{Key: "stopping", Text: "timed out (hard_timeout); killing the agent's process tree"}
	case s.Phase == Stopping && s.Verdict == watchdog.Hang:
		return Activity{Key: "stopping", Text: "hang detected (" + r.Kind + "); killing the agent's process tree"}
	case s.Phase == Stopping:
		return Activity{Key: "stopping", Text: "stopping the agent's process tree"}
	case s.Phase == Exiting:
		return Activity{Key: "exiting", Text: "the agent exited; reading its last output"}
	case r.Kind == watchdog.KindExit:
		return Activity{Key: "answered", Text: "answer complete; waiting for the agent to exit"}
	case len(r.OpenCalls) > 0:
		c := r.OpenCalls[0]
		open := max(r.OpenCount, len(r.OpenCalls))
		text := fmt.Sprintf("running %s: %s (%s of %s)", words.Display(c.Kind), words.Cut(words.Display(c.Command), commandRunes),
			words.Duration(max(c.Elapsed, 0)), words.Duration(c.Budget))
		if open > 1 {
			text += fmt.Sprintf(" and %d more", open-1)
		}
		return Activity{Key: "tool " + strconv.Itoa(open) + " " + c.ID, Text: text}
	}
	a := Activity{FromStream: true}
	last := r.LastEventType
	switch ph := p.Phase(last); {
	case last == "" || last == "start": // The watchdog's word before any line.
		a.Key, a.Text = "starting", "starting"
	case ph == stream.SessionOpened && r.SessionID != "":
		a.Key, a.Text = "waiting", "started, session "+short(r.SessionID)+"; waiting for the model"
	case ph == stream.SessionOpened || ph == stream.ModelsTurn:
		a.Key, a.Text = "waiting", "waiting for the model"
	case ph == stream.Thinking:
		a.Key, a.Text = "thinking", "thinking"
	case ph == stream.Writing:
		a.Key, a.Text = "writing", "writing"
	default:
		a.Key, a.Text = "working", "working (last: "+words.Display(last)+")"
	}
	return a
}

// Line renders the status for a status line at now, which may be later
// than the snapshot, in the words of the agent's profile p (nil for none).
func (s Status) Line(now time.Time, p *stream.Profile) string {
	r := s.Reason.MovedOn(now.Sub(s.Now))
	a := s.Activity(now, p)
	// Beside "silent 1s", "writing" would say two things at once: the
	// stream's last line told what the agent was doing.
	if s.Phase == Running && r.Silence >= time.Second && (a.Key == "writing" || a.Key == "thinking") {
		a.Text = "was " + a.Text
	}
	line := "cursor-wrap " + words.Duration(max(now.Sub(s.Started), 0)) + " | " + a.Text
	if s.Phase == Running {
		line += " | silent " + words.Duration(max(r.Silence, 0))
		if s.Verdict != watchdog.Hang && s.Verdict != watchdog.Overdue && r.DueIn > 0 {
			line += " | hang in " + words.Duration(r.DueIn)
		}
	}
	return line
}

// short cuts a session id to its first eight characters, enough to tell
// sessions apart on a status line.
func short(id string) string {
	if r := []rune(id); len(r) > 8 {
		id = string(r[:8])
	}
	return words.Display(id)
}
