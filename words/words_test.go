package words

import (
	"math"
	"syscall"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", time.Nanosecond: "1ns", 1500 * time.Microsecond: "2ms", 450 * time.Millisecond: "450ms",
		12345 * time.Millisecond: "12s", 1234 * time.Millisecond: "1.2s", 83 * time.Second: "1m23s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestOffsets(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{0: "+0.000s", 1500 * time.Millisecond: "+1.500s", 83*time.Second + 4*time.Millisecond: "+83.004s"} {
		if got := Offset(d); got != want {
			t.Errorf("Offset(%v) = %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "+0:00:00", 3723 * time.Second: "+1:02:03", 59500 * time.Millisecond: "+0:01:00"} {
		if got := Clock(d); got != want {
			t.Errorf("Clock(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestSignal names signals as a shell does, never as Go's String does
// ("killed", which made an MCP result read "killed by killed").
func TestSignal(t *testing.T) {
	t.Parallel()
	for sig, want := range map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGINT: "SIGINT", syscall.SIGTSTP: "SIGTSTP", 200: "signal 200"} {
		if got := Signal(sig); got != want {
			t.Errorf("Signal(%d) = %q, want %q", int(sig), got, want)
		}
	}
}

func TestNumbers(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", math.MaxInt64: "9,223,372,036,854,775,807"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{950: "950", 12_300: "12.3k", 999_949: "999.9k", 999_950: "1.0M", 4_100_000: "4.1M", 2_500_000_000: "2.5G"} {
		if got := Compact(n); got != want {
			t.Errorf("Compact(%d) = %q, want %q", n, got, want)
		}
	}
	for usd, want := range map[float64]string{0: "$0", 0.0123: "$0.0123", 0.0000123456: "$0.00001235", 12.345: "$12.35"} {
		if got := Dollars(usd); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", usd, got, want)
		}
	}
}

func TestSentences(t *testing.T) {
	t.Parallel()
	if got, want := Budget("max_cost_usd", true, 0.5, 0.75), "the agent stated a cost of $0.75, past the max_cost_usd budget of $0.5"; got != want {
		t.Errorf("Budget = %q, want %q", got, want)
	}
	if got, want := Budget("max_tokens", false, 50000, 51234), "the agent reported 51,234 tokens of input, cache writes and output, past the max_tokens budget of 50,000"; got != want {
		t.Errorf("Budget = %q, want %q", got, want)
	}
	if got, want := Person("Proceed?", "pass --force"), `the agent is waiting on a person: it asked "Proceed?", and nobody can answer a headless run; pass --force`; got != want {
		t.Errorf("Person = %q, want %q", got, want)
	}
}
