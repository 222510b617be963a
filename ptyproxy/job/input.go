package job

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
)

// What the agent receives beside what the user gave it. Every decision of
// the wrapper's that changes it is a record (sessionlog.Input) in the log
// of the attempt it concerns, whatever the console's level: the arguments
// and environment an attempt adds, the prompt a restart gives in place of
// the user's, stdin closed after stdin_wait (and what it held later),
// replayed to a rerun, or not given.

// inputRecords are the records of what the attempt that runs args in env
// changes of what the user gave: the arguments (the headless flags, a
// resumed session and its prompt, a fallback model), the environment (the
// wrapper's depth, the attempt's marker and trace parent; the shell
// function's variable taken out), then notes, what its restart decided.
func (j *Job) inputRecords(args, env []string, notes []sessionlog.Input) []sessionlog.Input {
	var recs []sessionlog.Input
	if add, rm := missing(j.Cmd.Given, args), missing(args, j.Cmd.Given); len(add)+len(rm) > 0 {
		add, rm = j.redact.Args(add), j.redact.Args(rm)
		recs = append(recs, sessionlog.Input{Change: sessionlog.InputArguments, Added: add, Removed: rm,
			Message: changeWords("arguments", ShellWords(add), ShellWords(rm))})
	}
	add, rm := envChange(os.Environ(), env)
	add = append(add, ptyproxy.MarkerEnv) // Set by ptyproxy.Run, a value per attempt.
	recs = append(recs, sessionlog.Input{Change: sessionlog.InputEnvironment, Added: add, Removed: rm,
		Message: changeWords("variables", strings.Join(add, " "), strings.Join(rm, " "))})
	return append(recs, notes...)
}

// changeWords says what the wrapper added and took out of the user's.
func changeWords(what, added, removed string) string {
	s := what + " added by the wrapper: " + added
	if removed != "" {
		s += "; taken out: " + removed
	}
	return s
}

// missing is what b holds that a does not, each element counted, in b's
// order.
func missing(a, b []string) []string {
	left := map[string]int{}
	for _, s := range a {
		left[s]++
	}
	var out []string
	for _, s := range b {
		if left[s] > 0 {
			left[s]--
			continue
		}
		out = append(out, s)
	}
	return out
}

// envChange names the variables env sets that from does not, or sets to
// another value, and those of from env takes out. A nil env is from
// itself, as exec takes it.
func envChange(from, env []string) (added, removed []string) {
	if env == nil {
		return nil, nil
	}
	values := func(kvs []string) map[string]string {
		m := map[string]string{}
		for _, kv := range kvs {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		return m
	}
	was, is := values(from), values(env)
	for k, v := range is {
		if old, ok := was[k]; !ok || old != v {
			added = append(added, k)
		}
	}
	for k := range was {
		if _, ok := is[k]; !ok {
			removed = append(removed, k)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// restartNotes are the records of what a restart changes of the stdin and
// the prompt: a resumed session gets the restart prompt in place of the
// user's and no stdin (it read it before); a rerun of the original command
// gets the run's stdin again.
func (j *Job) restartNotes(next step, prompt string, stdin *replay) []sessionlog.Input {
	var notes []sessionlog.Input
	switch {
	case next.resume != "":
		notes = append(notes, sessionlog.Input{Change: sessionlog.InputPrompt,
			Message: fmt.Sprintf("the prompt is the restart prompt %q, resuming session %s: the session holds the first one", prompt, next.resume)})
		if j.Stdin != nil {
			notes = append(notes, sessionlog.Input{Change: sessionlog.StdinNotGiven,
				Message: "stdin is not given to the resumed session: the agent read it in its first attempt"})
		}
	case stdin != nil:
		n := stdin.size()
		notes = append(notes, sessionlog.Input{Change: sessionlog.StdinReplayed, Bytes: n,
			Message: fmt.Sprintf("stdin is given again, whole, to the rerun of the original command: %d bytes", n)})
	}
	return notes
}

// stdinNotReplayed records, in the log of the attempt that ended as res,
// that no rerun of the original command runs because it could not have
// the run's stdin again: refusal says why.
func (j *Job) stdinNotReplayed(res Result, refusal string, stdin *replay) {
	if res.LogPath == "" {
		return
	}
	var n int64
	if stdin != nil {
		n = stdin.size()
	}
	// A log that cannot take it was reported when it failed.
	_ = sessionlog.Append(res.LogPath, j.redact, sessionlog.Input{Change: sessionlog.StdinNotReplayed, Bytes: n, Message: refusal})
}

// record writes r in the running attempt's log, from any goroutine (the
// one that feeds the agent's stdin).
func (j *Job) record(r sessionlog.Record) {
	j.mu.Lock()
	rec := j.rec
	j.mu.Unlock()
	rec.Write(r) // None between attempts: nothing to record then.
}

// lateStdin records, once, what the stdin closed after stdin_wait held by
// the end of the attempt: bytes that came too late, which the agent never
// got (they are left unread, for whoever reads that stdin next).
func (j *Job) lateStdin(rec *sessionlog.Recorder) {
	s := j.silent
	if s == nil || !s.ended.Load() || s.told {
		return
	}
	if n := ptyproxy.Unread(s.f); n > 0 {
		s.told = true
		rec.Write(sessionlog.Input{Change: sessionlog.StdinLate, Bytes: n,
			Message: fmt.Sprintf("stdin, closed to the agent after %v, held %d bytes by the end of the attempt: the agent never got them", s.wait, n)})
		j.console.Warn(fmt.Sprintf("stdin delivered %d bytes after it was closed to the agent (--stdin-wait %v): the agent did not get them", n, s.wait))
	}
}

// lockedSink serializes the records written from more than one goroutine
// to sinks that are not all safe for it (the demo's narrator).
type lockedSink struct {
	mu    sync.Mutex
	sinks []sessionlog.Sink
}

func (l *lockedSink) Write(m redact.Masked) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.sinks {
		s.Write(m)
	}
}
