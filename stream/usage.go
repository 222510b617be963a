package stream

import (
	"math"
	"strconv"

	"cursor-wrap/words"
)

// Usage is what an agent reported it spent: tokens, and a cost only where
// the agent itself states one. Tokens are normalised the same way for every
// agent (see docs/spending.md): Input is the input not served from a cache,
// CacheRead and CacheWrite the cache's parts, Output the output with any
// reasoning tokens the agent counts apart.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int64
	CostUSD                              float64
	// HasCost is set when the agent stated a cost (Claude, OpenCode); a
	// cost is never guessed from a price table.
	HasCost bool
}

// Tokens is what a token budget counts: what the agent was billed for as
// tokens, input (cache writes included: they are billed as input, at a
// premium) and output, the same for every agent. Cache reads are left out
// on purpose: they are cheap, and huge on a long session.
func (u Usage) Tokens() int64 { return satAdd(satAdd(u.Input, u.CacheWrite), u.Output) }

// A UsageScope says how an event's Usage adds to the run's total.
type UsageScope int

const (
	// UsageDelta adds to the total: one step's or one turn's spending.
	UsageDelta UsageScope = iota
	// UsageMessage is one message's spending so far, counted once per
	// Event.UsageID: a later value for the same id replaces the earlier
	// (Claude repeats a message's usage on each of its content blocks),
	// count by count, only upwards: a message's counts only grow.
	UsageMessage
	// UsageMessageEnd is the last message's spending at its end (Claude's
	// message_delta, with --include-partial-messages): it replaces that
	// message's counts as UsageMessage does.
	UsageMessageEnd
	// UsageTotal is the run's spending so far: it replaces the total
	// (a result's totals, Codex's cumulative turn usage).
	UsageTotal
)

// UsageTiming says when an agent reports what it spends, and so whether a
// budget can hold mid-run.
type UsageTiming int

const (
	UsageUnknown  UsageTiming = iota // a profile that does not say
	UsageAtEnd                       // only when the run ends (its result)
	UsageAsItGoes                    // per message or step, while the run goes on
)

// spent sets what the event reports the agent spent, if it reports it.
func (ev *Event) spent(u *Usage, scope UsageScope, id string) {
	if u != nil {
		ev.Usage, ev.UsageScope, ev.UsageID = u, scope, id
	}
}

// withCost is u with the cost a line stated, if it stated one: a cost
// alone is a report too.
func withCost(u *Usage, cost float64, stated bool) *Usage {
	if u == nil && stated {
		u = &Usage{}
	}
	if u != nil {
		u.CostUSD, u.HasCost = cost, stated
	}
	return u
}

// A Tally keeps a run's running total of usage. It is pure: feed it every
// event in order.
type Tally struct {
	total    Usage
	messages map[string]Usage // the last value counted for each message id
	message  string           // the id of the last message counted
	reported bool
}

// Add takes one event's usage, if it has one, and reports whether the
// total changed (the first report counts as a change, even of zeros: a run
// that reported 0 is not one that reported nothing).
func (t *Tally) Add(ev Event) (changed bool) {
	if ev.Usage == nil {
		return false
	}
	before, first := t.total, !t.reported
	t.reported = true
	u := *ev.Usage
	switch ev.UsageScope {
	case UsageTotal:
		t.total = u
	case UsageMessage, UsageMessageEnd:
		if ev.UsageScope == UsageMessage {
			t.message = ev.UsageID
		}
		if t.messages == nil {
			t.messages = map[string]Usage{}
		}
		last := t.messages[t.message]
		u = u.atLeast(last)
		t.messages[t.message] = u
		t.total = t.total.Plus(u.minus(last))
	default:
		t.total = t.total.Plus(u)
	}
	return first || t.total != before
}

// Total returns the running total.
func (t *Tally) Total() Usage { return t.total }

// Reported reports whether the agent reported any usage yet: until it
// does, the total is unknown, not 0.
func (t *Tally) Reported() bool { return t.reported }

// Plus is u and o added, each count saturating at the largest int64: a
// crafted or absurd report never wraps a total negative.
func (u Usage) Plus(o Usage) Usage {
	return Usage{
		Input:      satAdd(u.Input, o.Input),
		Output:     satAdd(u.Output, o.Output),
		CacheRead:  satAdd(u.CacheRead, o.CacheRead),
		CacheWrite: satAdd(u.CacheWrite, o.CacheWrite),
		CostUSD:    u.CostUSD + o.CostUSD,
		HasCost:    u.HasCost || o.HasCost,
	}
}

// atLeast is u with each count no less than o's: a message's later report
// that says less (Claude's blocks repeat the counts known at the message's
// start, its end gives the output alone) does not take back what an earlier
// one counted. The cost is u's.
func (u Usage) atLeast(o Usage) Usage {
	u.Input, u.Output = max(u.Input, o.Input), max(u.Output, o.Output)
	u.CacheRead, u.CacheWrite = max(u.CacheRead, o.CacheRead), max(u.CacheWrite, o.CacheWrite)
	return u
}

// minus is u less what was counted before for the same message, so that
// adding it to the total counts the message's last value once.
func (u Usage) minus(o Usage) Usage {
	return Usage{
		Input:      u.Input - o.Input,
		Output:     u.Output - o.Output,
		CacheRead:  u.CacheRead - o.CacheRead,
		CacheWrite: u.CacheWrite - o.CacheWrite,
		CostUSD:    u.CostUSD - o.CostUSD,
		HasCost:    u.HasCost,
	}
}

// satAdd adds counts that a crafted line may make huge: it saturates
// rather than wrap to a negative total a budget would never reach.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// count reads a token count: a number that is not one (negative, not a
// number, another type) counts 0.
func (s *scanner) count() int64 {
	n, ok := s.int64()
	if !ok || n < 0 {
		return 0
	}
	return n
}

// cost reads an amount in USD, and whether it is one: a finite number, not
// negative.
func (s *scanner) cost() (float64, bool) {
	b, ok := s.numberValue()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	return f, true
}

// usageKeys are an agent's names for its usage counts, and how they are
// normalised into a Usage.
type usageKeys struct {
	input, output, cacheRead, cacheWrite string
	// inputHasCache: the input count includes the cache reads (Codex,
	// Gemini CLI), which are taken out of it.
	inputHasCache bool
	// reasoning names reasoning tokens counted apart from the output
	// (OpenCode), which are added to it.
	reasoning string
	// cache names an object of "read" and "write" counts (OpenCode).
	cache string
	// total names a total that counts what the others leave out (Gemini
	// CLI's thinking tokens, billed as output): the rest is output.
	total string
}

// readUsage reads an object of usage counts named by keys, nil if the
// value is not an object.
func readUsage(s *scanner, keys usageKeys) *Usage {
	if s.peek() != '{' {
		s.skip()
		return nil
	}
	var u Usage
	var reasoning, total int64
	s.nested(func(key []byte) {
		switch string(key) {
		case "":
			s.skip()
		case keys.input:
			u.Input = s.count()
		case keys.output:
			u.Output = s.count()
		case keys.cacheRead:
			u.CacheRead = s.count()
		case keys.cacheWrite:
			u.CacheWrite = s.count()
		case keys.reasoning:
			reasoning = s.count()
		case keys.total:
			total = s.count()
		case keys.cache:
			s.nested(func(key []byte) {
				switch string(key) {
				case "read":
					u.CacheRead = s.count()
				case "write":
					u.CacheWrite = s.count()
				default:
					s.skip()
				}
			})
		default:
			s.skip()
		}
	})
	if rest := total - satAdd(u.Input, u.Output); rest > 0 {
		u.Output = satAdd(u.Output, rest)
	}
	if keys.inputHasCache {
		u.Input = max(u.Input-u.CacheRead, 0)
	}
	u.Output = satAdd(u.Output, reasoning)
	return &u
}

// String says the usage for people: "tokens in 1,200, out 340, cache
// read 9,000, write 0, cost $0.0123", the cache and the cost only when the
// agent reported them.
func (u Usage) String() string {
	s := "tokens in " + words.Thousands(u.Input) + ", out " + words.Thousands(u.Output)
	if u.CacheRead != 0 || u.CacheWrite != 0 {
		s += ", cache read " + words.Thousands(u.CacheRead) + ", write " + words.Thousands(u.CacheWrite)
	}
	if u.HasCost {
		s += ", cost " + words.Dollars(u.CostUSD)
	}
	return s
}

// Short says the usage in a few columns: "in 1.2k out 340 cache 9k
// $0.0123", the cache counting reads and writes.
func (u Usage) Short() string {
	s := "in " + words.Compact(u.Input) + " out " + words.Compact(u.Output)
	if cache := satAdd(u.CacheRead, u.CacheWrite); cache != 0 {
		s += " cache " + words.Compact(cache)
	}
	if u.HasCost {
		s += " " + words.Dollars(u.CostUSD)
	}
	return s
}
