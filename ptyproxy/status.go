package ptyproxy

import (
	"fmt"
	"strings"
	"time"

	"cursor-wrap/watchdog"
)

// Line renders the status for a status line at now, which may be later
// than the snapshot: silences and deadlines are moved on by the difference.
func (s Status) Line(now time.Time) string {
	d := now.Sub(s.Now)
	r := s.Reason
	parts := []string{"cursor-wrap " + clock(now.Sub(s.Started)), s.phase(d)}
	if s.Phase == Running {
		parts = append(parts, "silent "+clock(r.Silence+d))
		switch {
		case s.Verdict == watchdog.Waiting || s.Verdict == watchdog.OK || s.Verdict == watchdog.Warn:
			if due := r.DueIn - d; due > 0 {
				parts = append(parts, "hang in "+clock(due))
			}
		}
	}
	return strings.Join(parts, " | ")
}

// phase says what the agent is doing, as far as its stream tells.
func (s Status) phase(d time.Duration) string {
	r := s.Reason
	switch {
	case s.Phase == Stopping:
		return "stopping the agent"
	case s.Phase == Exiting:
		return "agent exited; finishing"
	case r.Kind == watchdog.KindExit:
		return "answer complete; waiting for exit"
	case len(r.OpenCalls) > 0:
		c := r.OpenCalls[0]
		more := ""
		if len(r.OpenCalls) > 1 {
			more = fmt.Sprintf(" (+%d more)", len(r.OpenCalls)-1)
		}
		return fmt.Sprintf("running %s: %s (%s of %s)%s", c.Kind, oneLine(c.Command), clock(c.Elapsed+d), clock(c.Budget), more)
	case r.LastEventType == "start":
		return "starting"
	case sessionStarts[r.LastEventType] && r.SessionID != "":
		return "started, session " + short(r.SessionID) + "; waiting for the model"
	case sessionStarts[r.LastEventType] || modelsTurn[r.LastEventType]:
		return "waiting for the model"
	case strings.HasPrefix(r.LastEventType, "thinking"):
		return "thinking"
	case strings.HasPrefix(r.LastEventType, "assistant"), r.LastEventType == "text":
		return "writing"
	}
	return "working (last: " + r.LastEventType + ")"
}

// sessionStarts are the events that open a session, each agent's: after
// one the agent has started and the model has the prompt (cursor and
// claude, gemini, codex).
var sessionStarts = map[string]bool{"system/init": true, "init": true, "thread.started": true}

// modelsTurn are events after which the next word is the model's: the
// prompt or a tool's result handed to it, a new turn or step begun.
var modelsTurn = map[string]bool{"user": true, "tool_call/completed": true, "tool_result": true, "turn.started": true, "step_start": true}

// short cuts a session id to its first eight characters, enough to tell
// sessions apart on a status line.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// clock formats a duration at one-second resolution: 45s, 1m23s, 2h0m5s.
func clock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Truncate(time.Second).String()
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
