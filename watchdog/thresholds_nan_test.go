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
