package job

import (
	"fmt"
	"time"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/stream"
	"cursor-wrap/words"
)

// A policy is a run's restart policy: after each attempt, whether another
// one runs, how (the session resumed, or the original command again; a
// fallback model) and when. Like the watchdog and the end of an attempt,
// it is a pure step: the facts of the attempt and the time in, the next
// step out; the job applies it. It counts the restarts and the fallback
// models used.
type policy struct {
	// off runs one attempt whatever the config says: the caller resumes
	// by itself.
	off bool
	// agent names the agent, and canResume says whether it resumes a
	// session by id.
	agent     string
	canResume bool

	restarts, fallbacks int // used so far
}

// restartSettings are the config's, read afresh at each step: a reload
// may change them during the run.
type restartSettings struct {
	restarts int // allowed
	prompt   string
	models   []string // fallback_models
}

// An attemptEnd is what the policy knows of the attempt that ended.
type attemptEnd struct {
	cause     ptyproxy.Cause
	done      bool // the agent gave its answer
	events    int
	hangKind  string
	agentErr  *stream.AgentError
	sessionID string
	// resumed says the attempt resumed a session (or ran a fallback
	// model): it ran other args than the command's.
	resumed bool
	// stdin says whether a rerun of the original command can have the
	// run's stdin again; stdinSize is how much of it was read.
	stdin     replayState
	stdinSize int64
}

// replayState is whether the run's stdin can be given again, whole, to a
// rerun of the original command.
type replayState int

const (
	noStdin      replayState = iota // the agent's stdin was empty
	stdinKept                       // kept whole: a rerun gets it again
	stdinNotKept                    // restarts was 0 when the run began
	stdinTooLong                    // more than maxReplay
)

// A step is what the policy decides after an attempt.
type step struct {
	again bool
	// resume is the session the next attempt resumes; "" runs the
	// original command again (with the run's stdin, when it had one).
	resume string
	// model is the fallback model the next attempt asks for; "" for the
	// one its args name.
	model string
	at    time.Time // when the next attempt starts: after a backoff, later than now
	why   string    // why it runs, and how
	// refusal says why no restart runs though one was due; "" when none
	// was. stdinLost says it is because the rerun could not have the run's
	// stdin again.
	refusal   string
	stdinLost bool
}

// Backoff after a rate limit or a network failure: the wait the agent
// asked for, else from firstBackoff doubling each restart (at most ten
// minutes); a wait longer than maxBackoff is not waited for.
const (
	firstBackoff = 15 * time.Second
	maxDoubling  = 10 * time.Minute
	maxBackoff   = time.Hour
)

// next decides, at now, whether another attempt runs after a: after a
// hang or an agent error a restart may help with (rate limit, network),
// while restarts are left, resuming the session when the agent can; and
// once, not counted, after a resumed attempt that failed before it
// produced any event (a session the agent no longer has). A restart after
// a hang or a rate limit moves to the next of fallback_models, if any is
// left.
func (p *policy) next(now time.Time, a attemptEnd, set restartSettings) step {
	if p.off {
		return step{}
	}
	var s step
	switch {
	case a.resumed && a.cause == ptyproxy.Exited && !a.done && a.events == 0:
		s = p.rerun(a, "resuming the session failed before the agent wrote anything (a session it no longer has)")
	case a.cause == ptyproxy.Hung, a.cause == ptyproxy.Exited && !a.done && a.agentErr != nil && a.agentErr.Restart:
		if p.restarts >= set.restarts {
			return step{}
		}
		p.restarts++
		if s = p.restart(now, a, set); !s.again {
			return s
		}
	default:
		return step{}
	}
	if !s.again {
		return s
	}
	if s.at.IsZero() {
		s.at = now
	}
	rateLimited := a.agentErr != nil && a.agentErr.Kind == stream.RateLimit
	if p.fallbacks < len(set.models) && (a.cause == ptyproxy.Hung || rateLimited) {
		s.model = set.models[p.fallbacks]
		p.fallbacks++
		s.why += "; with the next fallback model, " + s.model
	}
	return s
}

// restart is the step after a hang or an agent error, one of the
// restarts allowed: after an agent error, a wait first.
func (p *policy) restart(now time.Time, a attemptEnd, set restartSettings) step {
	what := "the last attempt hung (" + a.hangKind + ")"
	var wait time.Duration
	if e := a.agentErr; a.cause != ptyproxy.Hung {
		what = "the agent stopped: " + string(e.Kind)
		if wait = backoff(e, p.restarts, now); wait > maxBackoff {
			return step{refusal: fmt.Sprintf("not restarting: the agent asks to wait %s, more than %s", words.Duration(wait), words.Duration(maxBackoff))}
		}
		what += "; waiting " + words.Duration(wait) + " first"
	}
	if a.sessionID != "" && p.canResume {
		return step{again: true, resume: a.sessionID, at: now.Add(wait),
			why: fmt.Sprintf("%s; resuming session %s with %q", what, a.sessionID, set.prompt)}
	}
	cannot := "no session id was seen (the agent stopped before it named its session)"
	if !p.canResume {
		cannot = p.agent + " cannot resume a session by id"
	}
	s := p.rerun(a, what+"; "+cannot)
	if s.again {
		s.at = now.Add(wait)
	}
	return s
}

// rerun is the step that runs the original command again, with all of
// the original stdin when it had one; without it, none runs.
func (p *policy) rerun(a attemptEnd, why string) step {
	var cannot string
	switch a.stdin {
	case noStdin, stdinKept:
		return step{again: true, why: why + ", so the original command runs again"}
	case stdinNotKept:
		cannot = "its stdin was not kept (restarts was 0 when the run began)"
	case stdinTooLong:
		cannot = fmt.Sprintf("its stdin (%d bytes) was too long to keep (more than %d MiB)", a.stdinSize, maxReplay>>20)
	}
	return step{refusal: why + "; the original command cannot run again: " + cannot, stdinLost: true}
}

// backoff is the wait before the nth restart after the agent error e, at
// now.
func backoff(e *stream.AgentError, n int, now time.Time) time.Duration {
	if wait, named := e.Wait(now); named {
		return wait
	}
	// Doubled step by step, never shifted by n: a shift wraps negative
	// past the 30th restart, and a negative wait is no wait at all.
	d := firstBackoff
	for i := 1; i < n && d < maxDoubling; i++ {
		d *= 2
	}
	return min(d, maxDoubling)
}
