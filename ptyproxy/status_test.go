package ptyproxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// TestStatusPhase checks the words of the status line for each phase of a
// run, as the watchdog's last event tells it in its agent's words.
func TestStatusPhase(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		p             *stream.Profile
		last, session string
		want          string
	}{
		{stream.Cursor, "start", "", "starting"},
		{stream.Cursor, "system/init", "2d8f4a61-9e0b-4c37-b5a2-7f1e6d3c9b08", "started, session 2d8f4a61; waiting for the model"},
		{stream.Codex, "thread.started", "th-1", "started, session th-1; waiting for the model"},
		{stream.Gemini, "init", "", "waiting for the model"},
		{stream.Claude, "user", "s-1", "waiting for the model"},
		{stream.Cursor, "tool_call/completed", "s-1", "waiting for the model"},
		{stream.OpenCode, "step_start", "s-1", "waiting for the model"},
		{stream.Cursor, "thinking/delta", "s-1", "was thinking"},
		{stream.Cursor, "assistant", "s-1", "was writing"},
		{stream.OpenCode, "text", "", "was writing"},
		{stream.Cursor, "text", "", "working (last: text)"},
		{stream.Cursor, "result/success", "s-1", "working (last: result/success)"},
		{nil, "assistant", "", "working (last: assistant)"},
	} {
		st := Status{Now: now, Started: now.Add(-3 * time.Second), Verdict: watchdog.OK, Phase: Running,
			Reason: watchdog.Reason{LastEventType: tc.last, SessionID: tc.session, Silence: time.Second, DueIn: time.Minute}}
		want := "cursor-wrap 3s | " + tc.want + " | silent 1s | hang in 1m0s"
		if got := st.Line(now, tc.p); got != want {
			t.Errorf("after %s:\n got %q\nwant %q", tc.last, got, want)
		}
	}
}

// TestStatusActivity checks the words of each phase an attempt is in,
// moved on to the moment they are said, and what the agent's text becomes
// in them.
func TestStatusActivity(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	npm := watchdog.OpenCall{ID: "c1", Kind: "shellToolCall", Command: "npm\n test \x1b[31m\u202e" + strings.Repeat("x", 80), Elapsed: 40 * time.Second, Budget: 2 * time.Minute}
	for _, tc := range []struct {
		name string
		st   Status
		d    time.Duration
		want Activity
	}{
		{"tool", Status{Reason: watchdog.Reason{OpenCalls: []watchdog.OpenCall{npm}, OpenCount: 1}}, 5 * time.Second,
			Activity{Key: "tool 1 c1", Text: "running shellToolCall: npm test " + strings.Repeat("x", 50) + "… (45s of 2m0s)"}},
		{"stopping a hang", Status{Phase: Stopping, Verdict: watchdog.Hang, Reason: watchdog.Reason{Kind: watchdog.KindIdle}}, 0,
			Activity{Key: "stopping", Text: "hang detected (idle); killing the agent's process tree"}},
		{"stopping", Status{Phase: Stopping, Verdict: watchdog.Overdue}, 0, Activity{Key: "stopping", Text: "stopping the agent's process tree"}},
		{"exiting", Status{Phase: Exiting}, 0, Activity{Key: "exiting", Text: "the agent exited; reading its last output"}},
		{"answered", Status{Reason: watchdog.Reason{Kind: watchdog.KindExit}}, 0, Activity{Key: "answered", Text: "answer complete; waiting for the agent to exit"}},
		{"thinking", Status{Reason: watchdog.Reason{LastEventType: "thinking/delta"}}, 0, Activity{Key: "thinking", Text: "thinking", FromStream: true}},
	} {
		tc.st.Now = t0
		if got := tc.st.Activity(t0.Add(tc.d), stream.Cursor); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

// TestActivityCountsEveryOpenCall: a reason lists only the longest running
// calls; the words count all that are open.
func TestActivityCountsEveryOpenCall(t *testing.T) {
	t.Parallel()
	listed := make([]watchdog.OpenCall, watchdog.MaxReasonCalls)
	for i := range listed {
		listed[i] = watchdog.OpenCall{ID: fmt.Sprint("c", i), Kind: "shellToolCall", Command: "make", Budget: time.Minute}
	}
	a := Status{Reason: watchdog.Reason{OpenCalls: listed, OpenCount: 100}}.Activity(time.Time{}, stream.Cursor)
	if !strings.HasSuffix(a.Text, " and 99 more") || a.Key != "tool 100 c0" {
		t.Errorf("activity says %+v, want the 99 other open calls counted", a)
	}
}
