package job

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

func TestSummary(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	out := ptyproxy.Outcome{Started: start, Ended: start.Add(1500 * time.Millisecond), ExitCode: 0, LongestSilence: time.Second}
	res := Result{Outcome: out, LogPath: "/logs/x.jsonl"}
	restarted := res
	restarted.Before = []ptyproxy.Outcome{{Started: start.Add(-5 * time.Second), Ended: start.Add(-2 * time.Second), Cause: ptyproxy.Hung,
		Reason: watchdog.Reason{Kind: watchdog.KindIdle}, ToolCalls: 2, LongestSilence: 3 * time.Second}}
	spent := res
	spent.Spent = &stream.Usage{Input: 1200, Output: 340, CacheRead: 9000, CostUSD: 0.0123, HasCost: true}
	for _, tc := range []struct {
		name string
		cmd  Command
		res  Result
		want string
	}{
		// An agent that reported nothing is said to, not to have spent 0.
		{"events", Command{Mode: stream.Events}, res, "session (no id) exited 0 without a result after 1.5s; 0 tool calls; usage: not reported; longest silence 1s; log /logs/x.jsonl"},
		{"spent", Command{Mode: stream.Events}, spent,
			"session (no id) exited 0 without a result after 1.5s; 0 tool calls; usage: tokens in 1,200, out 340, cache read 9,000, write 0, cost $0.0123; longest silence 1s; log /logs/x.jsonl"},
		// A restarted run is told whole: from its first attempt's start,
		// its tool calls and longest silence over every attempt.
		{"restarted", Command{Mode: stream.Events}, restarted,
			"session (no id) exited 0 without a result after 6.5s over 2 attempts (attempt 1 hung (idle) and was killed after 3s); 2 tool calls; usage: not reported; longest silence 3s; log /logs/x.jsonl"},
		// No session, tool calls, result or usage to speak of in bytes.
		{"bytes", Command{Mode: stream.Bytes}, res, "the agent exited 0 after 1.5s; longest silence 1s; log /logs/x.jsonl"},
	} {
		if got := tc.cmd.Summary(tc.res); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestNextStep(t *testing.T) {
	t.Parallel()
	hung := func(id string) Result {
		return Result{Outcome: ptyproxy.Outcome{Cause: ptyproxy.Hung, SessionID: id, ExitSignal: syscall.SIGTERM, Reason: watchdog.Reason{Kind: "idle"}}}
	}
	const inspect = "cursor-wrap inspect --last"
	cursor := []string{"-p", "--output-format", "stream-json", "--model", "gpt-5", "fix it"}
	for _, tc := range []struct {
		name  string
		cmd   Command
		typed string
		res   Result
		want  string
	}{
		// The prompt gives way to the resume; format and model stay.
		{"alias", Command{Profile: stream.Cursor, Given: cursor, Mode: stream.Events}, "cursor-agent", hung("3f9c2a71"),
			"resume with `cursor-agent -p --output-format stream-json --model gpt-5 --resume 3f9c2a71 -- continue`; see `" + inspect + "`"},
		{"direct", Command{Profile: stream.Cursor, Given: []string{"fix it"}, Mode: stream.Events}, "cursor-wrap --workspace /w --", hung("3f9c2a71"),
			"resume with `cursor-wrap --workspace /w -- --resume 3f9c2a71 -- continue`; see `" + inspect + "`"},
		{"codex resumes with a subcommand", Command{Profile: stream.Codex, Given: []string{"exec", "--json", "fix"}, Mode: stream.Events}, "codex", hung("th-1"),
			"resume with `codex exec --json resume th-1 -- continue`; see `" + inspect + "`"},
		{"an id that needs quotes", Command{Profile: stream.Claude, Given: []string{"-p", "fix"}, Mode: stream.Events}, "claude", hung("a b"),
			"resume with `claude -p --resume 'a b' -- continue`; see `" + inspect + "`"},
		{"gemini cannot", Command{Profile: stream.Gemini, Mode: stream.Events}, "gemini", hung("g-1"),
			"gemini cannot resume a session by id; see `" + inspect + "`"},
		{"no session seen", Command{Profile: stream.Cursor, Mode: stream.Events}, "cursor-agent", hung(""),
			"no session id was seen, so there is none to resume; see `" + inspect + "`"},
		{"bytes: no ids to see", Command{Profile: stream.Cursor, Mode: stream.Bytes}, "cursor-agent", hung(""),
			"see `" + inspect + "`"},
		{"not a hang", Command{Profile: stream.Cursor, Mode: stream.Events}, "cursor-agent", Result{Outcome: ptyproxy.Outcome{Done: true}}, ""},
	} {
		if got := tc.cmd.NextStep(tc.res, tc.typed, "continue", inspect); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
	if got := (Command{Profile: stream.Cursor, Mode: stream.Events}).NextStep(hung("s"), "cursor-agent", "continue", ""); strings.Contains(got, "see") {
		t.Errorf("no log, still %q", got)
	}
}
