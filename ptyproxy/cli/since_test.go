package cli

import (
	"testing"
	"time"
)

// TestParseSince reads the forms --since takes.
func TestParseSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.Local)
	for in, want := range map[string]time.Time{
		"":           {},
		"7d":         now.AddDate(0, 0, -7),
		"36h":        now.Add(-36 * time.Hour),
		"2026-11-20": time.Date(2026, 11, 20, 0, 0, 0, 0, time.Local),
	} {
		if got, err := ParseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("--since %q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"d", "-7d", "-1h", "2026-13-01", "last week"} {
		if _, err := ParseSince(in, now); err == nil {
			t.Errorf("--since %q: no error", in)
		}
	}
}
