package watchdog

import "time"

// Thresholds are the limits the watchdog applies. The zero value of a
// duration disables the rule it names where that makes sense (HardTimeout,
// WarnBefore); the others must be positive (see Validate in config.go).
type Thresholds struct {
	IdleTimeout time.Duration // max silence with no tool call open
	ToolGrace   time.Duration // added to a call's declared timeout
	HardTimeout time.Duration // cap on one attempt, 0 = none
	WarnBefore  time.Duration // warn this long before a kill, 0 = never
	ExitGrace   time.Duration // after the terminal event, before Overdue
	MaxSilence  time.Duration // longest silence activity can excuse
	// ToolTimeouts gives calls that declare no timeout a budget by kind.
	ToolTimeouts map[string]time.Duration
	// ActivityProbe enables the activity rule; the orchestrator clears it
	// where /proc cannot be read.
	ActivityProbe     bool
	ActivityCPUFloor  float64 // fraction of one core
	ActivityReadFloor float64 // bytes per second
}

// DefaultThresholds are the values of SPEC §3 and §7.
func DefaultThresholds() Thresholds {
	return Thresholds{
		IdleTimeout:       60 * time.Second,
		ToolGrace:         30 * time.Second,
		ExitGrace:         5 * time.Second,
		MaxSilence:        15 * time.Minute,
		ActivityProbe:     true,
		ActivityCPUFloor:  0.05,
		ActivityReadFloor: 1024,
	}
}
