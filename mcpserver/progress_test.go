package mcpserver

import (
	"testing"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

var t0 = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

// TestPacer walks a fixed timeline: a phase change is sent at once, the
// same phase at most every progressEvery.
func TestPacer(t *testing.T) {
	t.Parallel()
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var p pacer
	for i, step := range []struct {
		at   time.Duration
		key  string
		want bool
	}{
		{0, "queued", true},
		{time.Second, "queued", false},
		{progressEvery - time.Millisecond, "queued", false},
		{progressEvery, "queued", true},
		{progressEvery + time.Millisecond, "starting", true},
		{progressEvery + 2*time.Millisecond, "thinking", true},
		{progressEvery + 3*time.Millisecond, "thinking", false},
		{2*progressEvery + 2*time.Millisecond, "thinking", true},
		{2*progressEvery + 3*time.Millisecond, "tool 1 c1", true},
		{2*progressEvery + 4*time.Millisecond, "tool 2 c1", true},
		{2*progressEvery + 5*time.Millisecond, "tool 2 c1", false},
	} {
		if got := p.due(step.key, at(step.at)); got != step.want {
			t.Errorf("step %d: due(%q, +%v) = %v, want %v", i, step.key, step.at, got, step.want)
		}
	}
	if w := p.wait(at(2*progressEvery + 5*time.Millisecond)); w != progressEvery-time.Millisecond {
		t.Errorf("wait = %v", w)
	}
	if w := p.wait(at(time.Hour)); w != progressEvery {
		t.Errorf("wait long after = %v", w)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	running := func(v watchdog.Verdict, r watchdog.Reason) view {
		return view{started: true, profile: stream.Cursor, status: &ptyproxy.Status{Now: t0, Started: t0.Add(-time.Minute), Verdict: v, Reason: r}}
	}
	npm := watchdog.OpenCall{ID: "c1", Kind: "shellToolCall", Command: "npm\n test", Elapsed: 40 * time.Second, Budget: 2 * time.Minute}
	for _, tc := range []struct {
		name    string
		v       view
		d       time.Duration // after the snapshot
		key     string
		text    string
		noStart bool
	}{
		{"arriving", view{arrived: t0}, 0, "", "", true},
		{"queued", view{arrived: t0, queued: true, running: 4, limit: 4}, 12 * time.Second, "queued", "queued: 4 of 4 agents running, waited 12s", false},
		{"starting", view{arrived: t0, started: true}, 0, "starting", "starting the agent", false},
		{"tool, moved on", running(watchdog.Waiting, watchdog.Reason{OpenCalls: []watchdog.OpenCall{npm}}), 5 * time.Second,
			"tool 1 c1", "running shellToolCall: npm test (45s of 2m0s)", false},
		{"two tools", running(watchdog.Waiting, watchdog.Reason{OpenCalls: []watchdog.OpenCall{npm, {ID: "c2", Kind: "readToolCall"}}}), 0,
			"tool 2 c1", "running shellToolCall: npm test (40s of 2m0s) and 1 more", false},
		{"writing, busy", running(watchdog.OK, watchdog.Reason{LastEventType: "assistant", Silence: 38 * time.Second, Evidence: watchdog.Evidence{Extended: time.Second}}), 2 * time.Second,
			"writing", "writing (silent 40s, agent busy)", false},
		{"thinking", running(watchdog.OK, watchdog.Reason{LastEventType: "thinking/delta", Silence: time.Second}), 0, "thinking", "thinking", false},
		{"just started", running(watchdog.OK, watchdog.Reason{LastEventType: "system/init"}), 0, "waiting", "waiting for the model", false},
		{"before any line", running(watchdog.OK, watchdog.Reason{LastEventType: "start"}), 0, "starting", "starting", false},
		{"newer line than the snapshot", func() view {
			v := running(watchdog.OK, watchdog.Reason{LastEventType: "system/init", Silence: time.Second})
			v.event, v.eventAt, v.output = "thinking/delta", t0.Add(time.Second), t0.Add(time.Second)
			return v
		}(), 7 * time.Second, "thinking", "thinking (silent 6s)", false},
		{"model's turn", running(watchdog.OK, watchdog.Reason{LastEventType: "tool_call/completed", Silence: 6 * time.Second}), 0, "waiting", "waiting for the model (silent 6s)", false},
		{"other", running(watchdog.OK, watchdog.Reason{LastEventType: "result/success"}), 0, "working", "working (last: result/success)", false},
		{"warn idle", running(watchdog.Warn, watchdog.Reason{Kind: watchdog.KindIdle, LastEventType: "assistant", Silence: 45 * time.Second, DueIn: 15 * time.Second}), 5 * time.Second,
			"warn", "writing (silent 50s); no output for 50s; the agent will be stopped in 10s unless it speaks", false},
		{"warn deadline", running(watchdog.Warn, watchdog.Reason{Kind: watchdog.KindDeadline, LastEventType: "thinking", Threshold: time.Hour, DueIn: 30 * time.Second}), 0,
			"warn", "thinking; the hard timeout of 1h0m0s stops the agent in 30s", false},
		{"answered", running(watchdog.OK, watchdog.Reason{Kind: watchdog.KindExit}), 0, "answered", "answer complete; waiting for the agent to exit", false},
		{"hang", view{started: true, status: &ptyproxy.Status{Now: t0, Phase: ptyproxy.Stopping, Verdict: watchdog.Hang, Reason: watchdog.Reason{Kind: "idle"}}}, 0,
			"stopping", "hang detected (idle); killing the agent's process tree", false},
		{"exiting", view{started: true, status: &ptyproxy.Status{Now: t0, Phase: ptyproxy.Exiting}}, 0, "exiting", "the agent exited; reading its last output", false},
	} {
		key, text := describe(tc.v, t0.Add(tc.d))
		if key != tc.key || text != tc.text {
			t.Errorf("%s: describe = %q, %q; want %q, %q", tc.name, key, text, tc.key, tc.text)
		}
	}
}
