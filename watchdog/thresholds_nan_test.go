package watchdog

import (
	"errors"
	"math"
	"testing"
)

// TestFloorsMustBeNumbers: NaN and ±Inf floors are refused; NaN compared
// false with every sample, so the CPU floor turned off without a word.
func TestFloorsMustBeNumbers(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		th := DefaultThresholds()
		th.ActivityCPUFloor, th.ActivityReadFloor = v, v
		var ie *InvalidError
		if err := th.Validate(); !errors.As(err, &ie) || ie.Key != "activity_cpu_floor" {
			t.Errorf("floors %v: %v", v, err)
		}
	}
}

// TestBudgetsMustBeNumbers: a negative, NaN or infinite budget is refused
// with its key; a NaN one would never be passed, so no budget at all.
func TestBudgetsMustBeNumbers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key string
		set func(*Thresholds)
	}{
		{"max_cost_usd", func(th *Thresholds) { th.MaxCostUSD = math.NaN() }},
		{"max_cost_usd", func(th *Thresholds) { th.MaxCostUSD = math.Inf(1) }},
		{"max_cost_usd", func(th *Thresholds) { th.MaxCostUSD = -0.01 }},
		{"max_tokens", func(th *Thresholds) { th.MaxTokens = -1 }},
	} {
		th := DefaultThresholds()
		tc.set(&th)
		var ie *InvalidError
		if err := th.Validate(); !errors.As(err, &ie) || ie.Key != tc.key {
			t.Errorf("%s: %v", tc.key, err)
		}
	}
	th := DefaultThresholds()
	th.MaxTokens, th.MaxCostUSD = 1000, 0.5
	if err := th.Validate(); err != nil {
		t.Errorf("budgets 1000 tokens and $0.50: %v", err)
	}
}
