package job

import (
	"fmt"
	"testing"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
)

// TestRestartPolicy walks a run's attempts through the policy, one row an
// attempt's end, on a timeline t0 + seconds: each row says what the policy
// decides, and when the next attempt starts.
func TestRestartPolicy(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	hang := attemptEnd{cause: ptyproxy.Hung, hangKind: "idle", sessionID: "s-1"}
	hangNoSession := attemptEnd{cause: ptyproxy.Hung, hangKind: "idle"}
	rateLimit := &stream.AgentError{Kind: stream.RateLimit, Restart: true}
	limited := attemptEnd{cause: ptyproxy.Exited, agentErr: rateLimit, sessionID: "s-1"}
	network := attemptEnd{cause: ptyproxy.Exited, agentErr: &stream.AgentError{Kind: stream.Network, Restart: true}, sessionID: "s-1"}
	resumeFailed := attemptEnd{cause: ptyproxy.Exited, resumed: true, stdin: stdinKept}
	with := func(a attemptEnd, f func(*attemptEnd)) attemptEnd { f(&a); return a }
	two := restartSettings{restarts: 2, prompt: "go on"}
	type row struct {
		at   int // seconds after t0
		end  attemptEnd
		want step // at in seconds after t0 in wantAt
		// wantAt is when the next attempt starts, seconds after t0.
		wantAt int
	}
	for _, tc := range []struct {
		name   string
		policy policy
		set    restartSettings
		rows   []row
	}{
		{"a hang resumes the session while restarts are left", policy{canResume: true}, two, []row{
			{0, hang, step{again: true, resume: "s-1", why: `the last attempt hung (idle); resuming session s-1 with "go on"`}, 0},
			{10, hang, step{again: true, resume: "s-1", why: `the last attempt hung (idle); resuming session s-1 with "go on"`}, 10},
			{20, hang, step{}, 0},
		}},
		{"no restart: the caller resumes by itself", policy{off: true, canResume: true}, two, []row{
			{0, hang, step{}, 0},
			{1, resumeFailed, step{}, 0},
		}},
		{"restarts 0", policy{canResume: true}, restartSettings{}, []row{
			{0, hang, step{}, 0},
		}},
		{"no session named: the command again, with its stdin", policy{canResume: true}, two, []row{
			{0, with(hangNoSession, func(a *attemptEnd) { a.stdin = stdinKept }), step{again: true,
				why: "the last attempt hung (idle); no session id was seen (the agent stopped before it named its session), so the original command runs again"}, 0},
			{5, hangNoSession, step{again: true,
				why: "the last attempt hung (idle); no session id was seen (the agent stopped before it named its session), so the original command runs again"}, 5},
		}},
		{"an agent that cannot resume by id runs the command again", policy{agent: "gemini"}, two, []row{
			{0, hang, step{again: true, why: "the last attempt hung (idle); gemini cannot resume a session by id, so the original command runs again"}, 0},
		}},
		{"a stdin that cannot be replayed: no rerun", policy{canResume: true}, two, []row{
			{0, with(hangNoSession, func(a *attemptEnd) { a.stdin = stdinNotKept }), step{refusal: "the last attempt hung (idle); no session id was seen " +
				"(the agent stopped before it named its session); the original command cannot run again: its stdin was not kept (restarts was 0 when the run began)", stdinLost: true}, 0},
			{1, with(hangNoSession, func(a *attemptEnd) { a.stdin, a.stdinSize = stdinTooLong, 9<<20 }), step{refusal: "the last attempt hung (idle); no session id was seen " +
				"(the agent stopped before it named its session); the original command cannot run again: its stdin (9437184 bytes) was too long to keep (more than 8 MiB)", stdinLost: true}, 0},
		}},
		{"an agent error waits, doubling", policy{canResume: true}, restartSettings{restarts: 3, prompt: "go on"}, []row{
			{0, limited, step{again: true, resume: "s-1", why: `the agent stopped: rate_limit; waiting 15s first; resuming session s-1 with "go on"`}, 15},
			{20, network, step{again: true, resume: "s-1", why: `the agent stopped: network; waiting 30s first; resuming session s-1 with "go on"`}, 50},
			{60, limited, step{again: true, resume: "s-1", why: `the agent stopped: rate_limit; waiting 1m0s first; resuming session s-1 with "go on"`}, 120},
			{130, limited, step{}, 0},
		}},
		{"the wait an agent names", policy{canResume: true}, two, []row{
			{0, with(limited, func(a *attemptEnd) {
				a.agentErr = &stream.AgentError{Kind: stream.RateLimit, Restart: true, RetryAt: t0.Add(100 * time.Second)}
			}),
				step{again: true, resume: "s-1", why: `the agent stopped: rate_limit; waiting 1m40s first; resuming session s-1 with "go on"`}, 100},
			{100, with(limited, func(a *attemptEnd) {
				a.agentErr = &stream.AgentError{Kind: stream.RateLimit, Restart: true, RetryAfter: 2 * time.Hour}
			}),
				step{refusal: "not restarting: the agent asks to wait 2h0m0s, more than 1h0m0s"}, 0},
		}},
		{"an error a restart cannot help, an answer, a stop", policy{canResume: true}, two, []row{
			{0, attemptEnd{cause: ptyproxy.Exited, agentErr: &stream.AgentError{Kind: stream.Auth}, sessionID: "s-1"}, step{}, 0},
			{1, attemptEnd{cause: ptyproxy.Exited, done: true, sessionID: "s-1"}, step{}, 0},
			{2, with(limited, func(a *attemptEnd) { a.done = true }), step{}, 0},
			{3, attemptEnd{cause: ptyproxy.Interrupted, sessionID: "s-1"}, step{}, 0},
			{4, attemptEnd{cause: ptyproxy.AwaitingPerson, sessionID: "s-1"}, step{}, 0},
		}},
		{"a resumed session the agent no longer has runs the command again, not counted", policy{canResume: true}, restartSettings{}, []row{
			{0, resumeFailed, step{again: true, why: "resuming the session failed before the agent wrote anything (a session it no longer has), so the original command runs again"}, 0},
			{1, with(resumeFailed, func(a *attemptEnd) { a.events = 1 }), step{}, 0},
			{2, with(resumeFailed, func(a *attemptEnd) { a.stdin = stdinTooLong }), step{refusal: "resuming the session failed before the agent wrote anything " +
				"(a session it no longer has); the original command cannot run again: its stdin (0 bytes) was too long to keep (more than 8 MiB)", stdinLost: true}, 0},
		}},
		{"fallback models after a hang or a rate limit, one each", policy{canResume: true}, restartSettings{restarts: 4, prompt: "go on", models: []string{"m1", "m2"}}, []row{
			{0, network, step{again: true, resume: "s-1", why: `the agent stopped: network; waiting 15s first; resuming session s-1 with "go on"`}, 15},
			{20, hang, step{again: true, resume: "s-1", model: "m1", why: `the last attempt hung (idle); resuming session s-1 with "go on"; with the next fallback model, m1`}, 20},
			{30, limited, step{again: true, resume: "s-1", model: "m2", why: `the agent stopped: rate_limit; waiting 1m0s first; resuming session s-1 with "go on"; with the next fallback model, m2`}, 90},
			{100, hang, step{again: true, resume: "s-1", why: `the last attempt hung (idle); resuming session s-1 with "go on"`}, 100},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.policy
			for i, r := range tc.rows {
				want := r.want
				if want.again {
					want.at = t0.Add(time.Duration(r.wantAt) * time.Second)
				}
				got := p.next(t0.Add(time.Duration(r.at)*time.Second), r.end, tc.set)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("step %d: %+v\nwant    %+v", i, got, want)
				}
			}
		})
	}
}

// TestBackoffNeverWraps: the doubling wait after the nth restart grows,
// stays capped at ten minutes and never wraps negative, however many
// restarts a run allows.
func TestBackoffNeverWraps(t *testing.T) {
	t.Parallel()
	e := &stream.AgentError{Kind: stream.RateLimit}
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	prev := time.Duration(0)
	for n := 1; n <= 1000; n++ {
		d := backoff(e, n, now)
		if d < prev || d <= 0 || d > maxDoubling {
			t.Fatalf("restart %d: backoff %v after %v", n, d, prev)
		}
		prev = d
	}
	if got := backoff(e, 1, now); got != firstBackoff {
		t.Errorf("first backoff %v, want %v", got, firstBackoff)
	}
	if got := backoff(e, 100, now); got != maxDoubling {
		t.Errorf("100th backoff %v, want %v", got, maxDoubling)
	}
}
