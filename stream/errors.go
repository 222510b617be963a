package stream

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An ErrorKind names why an agent says it cannot go on.
type ErrorKind string

// The kinds of agent error. A restart may help after the first two, never
// after the others: they need a person.
const (
	RateLimit ErrorKind = "rate_limit" // too many requests now (HTTP 429, resource_exhausted): wait and retry
	Network   ErrorKind = "network"    // the service cannot be reached
	Quota     ErrorKind = "quota"      // usage or credit used up for a period, or not in the plan
	Auth      ErrorKind = "auth"       // not logged in, or a bad or expired key
	Update    ErrorKind = "update"     // the CLI is too old for its service
)

// Restartable reports whether running the agent again may help: after a
// rate limit (with backoff) or a network failure.
func (k ErrorKind) Restartable() bool { return k == RateLimit || k == Network }

// An AgentError is an agent's own statement that it cannot go on, as a
// pattern of its profile recognised it.
type AgentError struct {
	Kind ErrorKind
	// Message says in one line what happened and what to do.
	Message string
	// Restart tells whether a restart may help (Kind.Restartable).
	Restart bool
	// RetryAfter is the wait the agent asked for, 0 if it named none;
	// RetryAt the moment it named instead, zero if none.
	RetryAfter time.Duration
	RetryAt    time.Time
	// Match is the phrase that matched: the pattern's words, not the
	// agent's, whose line is in the log already and may echo a key.
	Match string
}

// Wait is how long from now the agent asked to wait before a retry, and
// whether it named a wait at all: RetryAfter, else the time left until
// RetryAt (0 once that has passed).
func (e *AgentError) Wait(now time.Time) (time.Duration, bool) {
	switch {
	case e.RetryAfter > 0:
		return e.RetryAfter, true
	case !e.RetryAt.IsZero():
		return max(e.RetryAt.Sub(now), 0), true
	}
	return 0, false
}

// An ErrorPattern recognises one way an agent words an error.
type ErrorPattern struct {
	Kind ErrorKind
	// Phrases must all appear in the text, compared without regard to
	// ASCII case.
	Phrases []string
	// Sample is text the agent wrote that the pattern matches, as found in
	// the source cited next to the pattern; the tests hold each pattern to
	// its sample.
	Sample string
	// Message replaces the kind's advice when the agent's case needs its
	// own (a login command, a plan page).
	Message string
}

// kindAdvice is each kind's one-line advice.
var kindAdvice = map[ErrorKind]string{
	RateLimit: "the agent's provider is rate-limiting requests: wait and retry later, with backoff",
	Network:   "the agent cannot reach its service: check the network, DNS, proxy or VPN, then retry",
	Quota:     "the account's usage or credit is used up: wait for it to reset, or raise the plan",
	Auth:      "the agent is not logged in or its key is invalid: log in or set the key, then run again",
	Update:    "the agent's CLI is too old for its service: update it, then run again",
}

// An errorTable is a profile's patterns, in the order they are tried (the
// most specific wording first), and the phrases that mark a notice of a
// retry the agent is making itself: such a line says it goes on.
type errorTable struct {
	patterns []ErrorPattern
	retrying []string
}

// maxErrorText bounds the text a pattern table looks at: an agent states
// its error in the first words of a line, and a stack trace or a megabyte
// line must cost no more than a short one.
const maxErrorText = 2 << 10

// classify matches text against the table. It is called only on text an
// agent uses for errors (see eventError and Profile.Stderr), never on
// answers or tool output, so an agent discussing rate limits is not
// classified. It costs a few case-insensitive searches over at most
// maxErrorText bytes, and allocates only on a match.
func classify[T string | []byte](t *errorTable, text T) *AgentError {
	if len(text) > maxErrorText {
		text = text[:maxErrorText]
	}
	for _, r := range t.retrying {
		if containsFold(text, r) {
			return nil
		}
	}
	for i := range t.patterns {
		p := &t.patterns[i]
		if matchesAll(text, p.Phrases) {
			return p.errorFor(string(text))
		}
	}
	return nil
}

func matchesAll[T string | []byte](text T, phrases []string) bool {
	for _, ph := range phrases {
		if !containsFold(text, ph) {
			return false
		}
	}
	return true
}

func (p *ErrorPattern) errorFor(text string) *AgentError {
	e := &AgentError{Kind: p.Kind, Message: p.Message, Restart: p.Kind.Restartable(), Match: p.Phrases[0]}
	if e.Message == "" {
		e.Message = kindAdvice[p.Kind]
	}
	if p.Kind == RateLimit || p.Kind == Quota {
		e.RetryAfter, e.RetryAt = retryWhen(text)
	}
	return e
}

// eventError classifies what a parsed line says, if it is eligible: the
// error text its parser found on an error event (errText), or the whole
// line when it is not JSON — agents print their fatal notices as plain
// text (cursor's "T: …", "Error: …") — unless it opens an object, which
// makes it a broken event, not a notice.
func (t *errorTable) eventError(ev *Event, errText string, line []byte) {
	switch {
	case ev.NotJSON && len(line) > 0 && line[0] != '{':
		ev.Error = classify(t, line)
	case !ev.NotJSON && errText != "":
		ev.Error = classify(t, errText)
	}
}

// Stderr classifies one line the agent wrote on stderr; nil when it says
// nothing this profile knows as fatal. Notices of a retry the agent makes
// itself ("Retrying with backoff…") are not errors: the agent goes on.
func (p *Profile) Stderr(line []byte) *AgentError {
	if p.errors == nil {
		return nil
	}
	return classify(p.errors, line)
}

// ErrorPatterns returns the profile's error patterns, in the order they
// are tried.
func (p *Profile) ErrorPatterns() []ErrorPattern {
	if p.errors == nil {
		return nil
	}
	return slices.Clone(p.errors.patterns)
}

// containsFold reports whether sub occurs in b, ignoring ASCII case. It
// does not allocate.
func containsFold[T string | []byte](b T, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	first := lower(sub[0])
	for i := 0; i+n <= len(b); i++ {
		if lower(b[i]) != first {
			continue
		}
		k := 1
		for k < n && lower(b[i+k]) == lower(sub[k]) {
			k++
		}
		if k == n {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// How agents state when to retry; each regexp's group holds the amount.
// Compiled at the first error read, not at every wrapper's start.
var retryREs = sync.OnceValue(func() (r struct{ in, delay, resetsInSeconds, after, at, amount *regexp.Regexp }) {
	// "try again in 5 days 22 hours 11 minutes" (codex), "Please retry in
	// 36.58s" (gemini), "resets in 1d 5h" (opencode).
	r.in = regexp.MustCompile(`(?i)(?:retry|try again|resets) in ((?:\d+(?:\.\d+)?\s*[a-z]+[ ,]*)+)`)
	// gemini's RetryInfo detail: "retryDelay": "36s".
	r.delay = regexp.MustCompile(`(?i)retryDelay\\?"?\s*:\s*\\?"(\d+(?:\.\d+)?s)`)
	// codex usage_limit_reached: "resets_in_seconds":13872.
	r.resetsInSeconds = regexp.MustCompile(`(?i)resets_in_seconds\\?"?\s*:\s*(\d+)`)
	// An HTTP header quoted in the message: "Retry-After: 30".
	r.after = regexp.MustCompile(`(?i)retry-after\\?"?\s*:\s*\\?"?(\d+)`)
	// Claude's "Claude AI usage limit reached|1766502000", codex's
	// "resets_at":1777936568: a Unix time.
	r.at = regexp.MustCompile(`(?:limit reached\||resets_at\\?"?\s*:\s*)(\d{10})\b`)
	// One amount of a duration in words.
	r.amount = regexp.MustCompile(`(?i)^\s*(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b[ ,]*`)
	return r
})

// retryWhen reads the wait an agent states in an error text.
func retryWhen(text string) (after time.Duration, at time.Time) {
	re := retryREs()
	if m := re.at.FindStringSubmatch(text); m != nil {
		if s, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			at = time.Unix(s, 0).UTC()
		}
	}
	if m := re.resetsInSeconds.FindStringSubmatch(text); m != nil {
		after = spelledDuration(m[1] + "s")
	} else if m := re.delay.FindStringSubmatch(text); m != nil {
		after = spelledDuration(m[1])
	} else if m := re.in.FindStringSubmatch(text); m != nil {
		after = spelledDuration(m[1])
	} else if m := re.after.FindStringSubmatch(text); m != nil {
		after = spelledDuration(m[1] + "s")
	}
	return after, at
}

// spelledDuration reads a duration written as amounts and units: "5 days 22 hours
// 11 minutes", "1d 5h", "36.58s".
func spelledDuration(s string) time.Duration {
	var d time.Duration
	amount := retryREs().amount
	for {
		m := amount.FindStringSubmatch(s)
		if m == nil {
			return d
		}
		s = s[len(m[0]):]
		n, _ := strconv.ParseFloat(m[1], 64)
		unit := time.Second
		switch u := strings.ToLower(m[2]); {
		case u == "ms" || strings.HasPrefix(u, "milli"):
			unit = time.Millisecond
		case u == "m" || strings.HasPrefix(u, "min"):
			unit = time.Minute
		case u[0] == 'h':
			unit = time.Hour
		case u[0] == 'd':
			unit = 24 * time.Hour
		}
		// Saturate, never wrap: "retry in 1e30 days" is a long wait, and
		// a wrapped (negative) one would be read as none.
		if f := n*float64(unit) + float64(d); f >= math.MaxInt64 {
			d = math.MaxInt64
		} else {
			d += time.Duration(n * float64(unit))
		}
	}
}

// Each agent's file holds its error wording, with where it was seen. A
// pattern's Sample is that text (trimmed to the part that matters, ids kept as found); the
// tests hold each pattern to its sample and to near misses. Patterns are
// tried in order: an update notice that arrives wrapped in a
// resource_exhausted error is an update, so update comes first.
//
// The runtime's own network errors come last in every table: the agents
// are Node or Bun programs (codex's Rust core words its own), and print
// the error code of a failed connect or DNS lookup.

// networkErrors are the connection failures every agent shares.
var networkErrors = []ErrorPattern{
	// Node's DNS failure code. google-gemini/gemini-cli#5746 (gemini,
	// "[API Error: … getaddrinfo ENOTFOUND …]"); continuedev/continue#10924
	// shows the same for api.anthropic.com.
	{Kind: Network, Phrases: []string{"ENOTFOUND"},
		Sample: "[API Error: request to https://cloudcode-pa.googleapis.com/v1internal:countTokens failed, reason: getaddrinfo ENOTFOUND cloudcode-pa.googleapis.com]"},
	// google-gemini/gemini-cli#19908: the temporary DNS failure, named next
	// to ENOTFOUND in the fix the issue links (#19960).
	{Kind: Network, Phrases: []string{"EAI_AGAIN"},
		Sample: "getaddrinfo EAI_AGAIN cloudcode-pa.googleapis.com"},
	// KimYx0207/AI-Coding-Guide-Zh#5 (Claude Code 2.1.50);
	// cursor/cursor#1406 ("connect ECONNREFUSED 127.0.0.1:11434").
	{Kind: Network, Phrases: []string{"ECONNREFUSED"},
		Sample: "Failed to connect to api.anthropic.com: ECONNREFUSED"},
	// Node's connect(2) errors for a missing route. No agent capture was
	// found; the sample is Node's wording ("connect <code> <address>"),
	// constructed.
	{Kind: Network, Phrases: []string{"ENETUNREACH"}, Sample: "connect ENETUNREACH 2607:6bc0::10:443"},
	{Kind: Network, Phrases: []string{"EHOSTUNREACH"}, Sample: "connect EHOSTUNREACH 160.79.104.10:443"},
	{Kind: Network, Phrases: []string{"network is unreachable"}, Sample: "dial tcp: connect: network is unreachable"},
}
