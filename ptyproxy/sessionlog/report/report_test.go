package report

import (
	"math"
	"testing"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// attempt is an attempt of agent that started at t0 plus start and ended
// as cause and status said, took seconds, and spent usage (nil: reported
// nothing).
func attempt(agent, run string, n int, start, took time.Duration, cause string, status int, usage *stream.Usage) Attempt {
	a := Attempt{RunKey: sessionlog.RunKey{Agent: agent, Run: run, Number: n, Start: t0.Add(start)}, Usage: usage}
	if cause != "" {
		a.End = a.Start.Add(took)
		a.Exit = &sessionlog.Exit{End: sessionlog.End{Cause: cause, Status: status}}
	}
	return a
}

// The attempts of one run count as one run that ended as its last attempt
// did: by the run id, or, in logs from before it, by the attempt numbers.
func TestRuns(t *testing.T) {
	t.Parallel()
	spent := &stream.Usage{Input: 100, Output: 10, CostUSD: 0.5, HasCost: true}
	attempts := []Attempt{
		// Listed out of order, as a directory listing may.
		attempt("claude", "a", 2, 70*time.Second, 10*time.Second, "exited", 0, spent),
		attempt("claude", "a", 1, 0, 60*time.Second, "hung", 124, spent),
		attempt("claude", "b", 1, 30*time.Second, 5*time.Second, "exited", 0, nil), // another run of claude meanwhile
		// Without run ids: attempt 2 joins the codex run whose last attempt was 1.
		attempt("codex", "", 1, time.Minute, 20*time.Second, "hung", 124, &stream.Usage{Input: 7}),
		attempt("codex", "", 2, 2*time.Minute, 20*time.Second, "exited", 0, nil),
		// Its first attempt pruned: a run of its own.
		attempt("gemini", "", 2, 3*time.Minute, time.Second, "exited", 0, nil),
	}
	runs := Runs(attempts)
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 4: %+v", len(runs), runs)
	}
	a, b, codex, gemini := runs[0], runs[1], runs[2], runs[3]
	if a.Attempts != 2 || a.Last.Number != 2 || b.Attempts != 1 || codex.Attempts != 2 || gemini.Attempts != 1 {
		t.Errorf("attempts: a %d, b %d, codex %d, gemini %d; want 2 1 2 1", a.Attempts, b.Attempts, codex.Attempts, gemini.Attempts)
	}
	if c, _ := a.Outcome(); c != Answered {
		t.Errorf("run a ended %s, want answered: its last attempt's outcome", c)
	}
	if d, ok := a.Duration(); !ok || d != 80*time.Second {
		t.Errorf("run a took %v, want 80s: from its first start to its last exit", d)
	}
	if u := a.Usage; u == nil || u.Input != 200 || u.Output != 20 || !u.HasCost || u.CostUSD != 1 {
		t.Errorf("run a spent %+v, want both attempts' sum", u)
	}
	if u := codex.Usage; u == nil || u.Input != 7 || u.HasCost {
		t.Errorf("codex spent %+v: an attempt that reported nothing adds nothing, and no cost was stated", u)
	}
	if b.Usage != nil {
		t.Errorf("run b spent %+v, want nil: not reported", b.Usage)
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	// The causes as the proxy names them.
	exited, overdue, hung, person := ptyproxy.Exited.String(), ptyproxy.Overdue.String(), ptyproxy.Hung.String(), ptyproxy.AwaitingPerson.String()
	interrupted, cancelled, downstream := ptyproxy.Interrupted.String(), ptyproxy.Cancelled.String(), ptyproxy.Downstream.String()
	toolHang := attempt("cursor", "", 1, 0, time.Second, hung, 124, nil)
	toolHang.HangKind = "tool"
	failed := attempt("claude", "", 1, 0, time.Second, exited, 81, nil)
	failed.AgentError = "network"
	tokens := attempt("claude", "", 1, 0, time.Second, ptyproxy.OverBudget.String(), 86, nil)
	tokens.HangKind, tokens.Budget = watchdog.KindBudget, watchdog.BudgetTokens
	start := attempt("claude", "", 1, 0, 0, "", 0, nil)
	start.StartFailed = true
	for _, c := range []struct {
		a              Attempt
		category, kind string
	}{
		{attempt("claude", "", 1, 0, time.Second, exited, 0, nil), Answered, ""},
		{attempt("claude", "", 1, 0, time.Second, overdue, 0, nil), Answered, ""},
		{toolHang, Hung, "tool"},
		{attempt("cursor", "", 1, 0, time.Second, hung, 124, nil), Hung, "unknown"},
		{failed, AgentError, "network"},
		{attempt("claude", "", 1, 0, time.Second, person, 85, nil), Person, ""},
		{attempt("claude", "", 1, 0, time.Second, exited, 85, nil), Person, ""},
		{tokens, OverBudget, "max_tokens"},
		{attempt("claude", "", 1, 0, time.Second, interrupted, 130, nil), Stopped, ""},
		{attempt("claude", "", 1, 0, time.Second, cancelled, 143, nil), Stopped, ""},
		{attempt("claude", "", 1, 0, time.Second, downstream, 141, nil), Other, "stdout closed"},
		{attempt("claude", "", 1, 0, time.Second, exited, 3, nil), Other, "status 3"},
		{attempt("claude", "", 1, 0, 0, "", 0, nil), Other, "unfinished"},
		{start, Other, "start failed"},
	} {
		category, kind := Run{Last: c.a}.Outcome()
		if category != c.category || kind != c.kind {
			t.Errorf("%+v: ended %s %q, want %s %q", c.a.Exit, category, kind, c.category, c.kind)
		}
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	var runs []Run
	// 20 runs of claude on one day, taking 1s to 20s; the 20th hung.
	for i := 1; i <= 20; i++ {
		cause, status := "exited", 0
		if i == 20 {
			cause, status = "hung", 124
		}
		a := attempt("claude", "", 1, time.Duration(i)*time.Minute, time.Duration(i)*time.Second, cause, status, &stream.Usage{Input: 10, Output: 1, CacheRead: 100, CostUSD: 0.25, HasCost: true})
		runs = append(runs, Run{Agent: a.Agent, Start: a.Start, End: a.End, Attempts: 1, Last: a, Usage: a.Usage})
	}
	next := attempt("codex", "", 1, 24*time.Hour, 0, "", 0, nil) // the next day, unfinished, nothing reported
	runs = append(runs, Run{Agent: "codex", Start: next.Start, Attempts: 1, Last: next})
	groups, total := Summarize(runs)
	if len(groups) != 2 || groups[0].Agent != "claude" || groups[1].Agent != "codex" || groups[0].Day == groups[1].Day {
		t.Fatalf("groups %+v", groups)
	}
	c := groups[0]
	if c.Runs != 20 || c.Ended[Answered].Runs != 19 || c.Ended[Hung].Kinds["unknown"] != 1 {
		t.Errorf("claude ended %+v", c.Ended)
	}
	if c.Duration != (Durations{Runs: 20, MedianMS: 10_000, P95MS: 19_000}) {
		t.Errorf("claude durations %+v, want median 10s and p95 19s (nearest rank)", c.Duration)
	}
	if u := c.Usage; u.RunsReported != 20 || u.InputTokens != 200 || u.CacheReadTokens != 2000 || u.RunsWithCost != 20 || *u.CostUSD != 5 {
		t.Errorf("claude spent %+v", u)
	}
	x := groups[1]
	if x.Duration.Runs != 0 || x.Usage.RunsNotReported != 1 || x.Usage.RunsReported != 0 || x.Usage.CostUSD != nil || x.Ended[Other].Kinds["unfinished"] != 1 {
		t.Errorf("codex %+v", x)
	}
	if total.Runs != 21 || total.Usage.RunsNotReported != 1 || total.Duration.Runs != 20 {
		t.Errorf("total %+v", total)
	}
}

// TestUsageSumSaturates: runs whose crafted logs claim counts near the
// largest int64 sum to that largest value, never to a negative total.
func TestUsageSumSaturates(t *testing.T) {
	huge := &stream.Usage{Input: math.MaxInt64 - 1, Output: 5}
	sum := add(add(nil, huge), huge)
	if sum.Input != math.MaxInt64 || sum.Output != 10 {
		t.Errorf("sum %+v", *sum)
	}
}

// TestGroupSumSaturates: two runs of one agent on one day whose crafted
// logs claim counts near the largest int64 sum, per day and agent and in
// total, to that largest value, never to a negative one.
func TestGroupSumSaturates(t *testing.T) {
	t.Parallel()
	huge := &stream.Usage{Input: math.MaxInt64 - 2, Output: 3, CacheRead: math.MaxInt64, CacheWrite: math.MaxInt64 - 1}
	runs := Runs([]Attempt{
		attempt("claude", "a", 1, 0, time.Second, "exited", 0, huge),
		attempt("claude", "b", 1, time.Minute, time.Second, "exited", 0, huge),
	})
	groups, total := Summarize(runs)
	for _, g := range append(groups, total) {
		if u := g.Usage; u.InputTokens != math.MaxInt64 || u.OutputTokens != 6 || u.CacheReadTokens != math.MaxInt64 || u.CacheWriteTokens != math.MaxInt64 {
			t.Errorf("group %q %q sums %+v, want each count at the largest int64 (output 6)", g.Day, g.Agent, u)
		}
	}
}

// TestDayIsLocal: a run falls on the local date it started on, not the
// UTC one, on either side of UTC. (Not parallel: it sets time.Local.)
func TestDayIsLocal(t *testing.T) {
	local := time.Local
	defer func() { time.Local = local }()
	for _, tc := range []struct{ zone, at, want string }{
		{"Pacific/Kiritimati", "2026-03-01T12:00:00Z", "2026-03-02"}, // UTC+14
		{"Pacific/Pago_Pago", "2026-03-01T05:00:00Z", "2026-02-28"},  // UTC-11
		{"UTC", "2026-03-01T05:00:00Z", "2026-03-01"},
	} {
		loc, err := time.LoadLocation(tc.zone)
		if err != nil {
			t.Fatalf("no time zone data for %s: %v", tc.zone, err)
		}
		at, _ := time.Parse(time.RFC3339, tc.at)
		time.Local = loc
		if got := Day(at); got != tc.want {
			t.Errorf("%s: %s is on %s, want %s", tc.zone, tc.at, got, tc.want)
		}
	}
}
