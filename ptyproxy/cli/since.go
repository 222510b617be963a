package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads --since (report, sessions): a date (the start of that day, local time), or
// a time back from now (7d, 36h); "" is the beginning of time.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("give a date (2006-01-02) or a time back from now (7d, 36h)")
}
