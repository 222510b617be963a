package watchdog

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// Thresholds are the limits the watchdog applies. The zero value of a
// duration disables the rule it names where that makes sense (HardTimeout,
// WarnBefore); the others must be positive (see Validate).
type Thresholds struct {
	IdleTimeout time.Duration // max silence with no tool call open
	ToolGrace   time.Duration // added to a call's declared timeout
	HardTimeout time.Duration // cap on one attempt, 0 = none
	WarnBefore  time.Duration // warn this long before a kill, 0 = never
	ExitGrace   time.Duration // after the terminal event, before Overdue
	MaxSilence  time.Duration // longest silence activity can excuse
	// MaxKeepAliveWait is the longest silence that keep-alives alone may
	// excuse while the model is waited on (at most MaxSilence): a
	// thinking model and a parked turn look the same, so it bounds the
	// worst case. 0: keep-alives never excuse a silence.
	MaxKeepAliveWait time.Duration
	// ToolTimeouts gives calls that declare no timeout a budget by kind.
	ToolTimeouts map[string]time.Duration
	// ActivityProbe enables the activity rule; the orchestrator clears it
	// where the process tree's activity cannot be read.
	ActivityProbe bool
	// ConnProbe is set by the orchestrator where it reads the agent's
	// connections (Linux): samples are then taken all through a silence
	// in which the model is waited on.
	ConnProbe         bool
	ActivityCPUFloor  float64 // fraction of one core
	ActivityReadFloor float64 // bytes per second
	// TextMode is set by the orchestrator for a run whose output is not a
	// stream of events: its silence is judged by evidence alone (idleDue).
	TextMode bool
	// MaxTokens and MaxCostUSD are the run's budgets, 0 for none: the
	// tokens the agent was billed for, input with cache writes and output
	// (stream.Usage.Tokens: cache reads are cheap and huge, so they do not
	// count), and the cost the agent itself states.
	MaxTokens  int
	MaxCostUSD float64
}

// DefaultThresholds are the defaults the README's configuration table
// documents.
func DefaultThresholds() Thresholds {
	return Thresholds{
		IdleTimeout:       defaultIdleTimeout,
		ToolGrace:         30 * time.Second,
		ExitGrace:         5 * time.Second,
		MaxSilence:        15 * time.Minute,
		MaxKeepAliveWait:  10 * time.Minute,
		ActivityProbe:     true,
		ActivityCPUFloor:  0.05,
		ActivityReadFloor: 1024,
	}
}

// An InvalidError says which threshold is wrong and why. Key is the
// threshold's name in the config file (idle_timeout), so the caller can
// name it as the user wrote it: a flag, a variable or a file key.
type InvalidError struct {
	Key     string
	Problem string
}

func (e *InvalidError) Error() string { return e.Key + ": " + e.Problem }

// Validate checks each threshold on its own; the error joins an
// *InvalidError per bad value.
func (th Thresholds) Validate() error {
	var errs []error
	bad := func(key, format string, a ...any) {
		errs = append(errs, &InvalidError{Key: key, Problem: fmt.Sprintf(format, a...)})
	}
	for _, d := range []struct {
		key      string
		v        time.Duration
		positive bool
	}{
		{"idle_timeout", th.IdleTimeout, true},
		{"tool_grace", th.ToolGrace, false},
		{"hard_timeout", th.HardTimeout, false},
		{"warn_before", th.WarnBefore, false},
		{"exit_grace", th.ExitGrace, false},
		{"max_silence", th.MaxSilence, false},
		{"max_keepalive_wait", th.MaxKeepAliveWait, false},
	} {
		switch {
		case d.v < 0:
			bad(d.key, "%v is negative", d.v)
		case d.positive && d.v == 0:
			bad(d.key, "must be more than 0")
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(th.ToolTimeouts)) {
		if d := th.ToolTimeouts[kind]; d <= 0 {
			bad("tool_timeouts."+kind, "%v is not positive", d)
		}
	}
	// NaN compares false with everything and +Inf is above any activity:
	// either would turn the floor off without a word.
	for _, f := range []struct {
		key string
		v   float64
	}{{"activity_cpu_floor", th.ActivityCPUFloor}, {"activity_read_floor", th.ActivityReadFloor}} {
		switch {
		case math.IsNaN(f.v) || math.IsInf(f.v, 0):
			bad(f.key, "%v is not a number a floor can be", f.v)
		case f.v < 0:
			bad(f.key, "%v is negative", f.v)
		}
	}
	// Likewise a NaN budget would never be passed: no budget, unsaid.
	switch c := th.MaxCostUSD; {
	case math.IsNaN(c) || math.IsInf(c, 0):
		bad("max_cost_usd", "%v is not a number a budget can be", c)
	case c < 0:
		bad("max_cost_usd", "%v is negative", c)
	}
	if th.MaxTokens < 0 {
		bad("max_tokens", "%d is negative", th.MaxTokens)
	}
	return errors.Join(errs...)
}
