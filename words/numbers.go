package words

import (
	"fmt"
	"strconv"
)

// Thousands writes n with commas between its thousands.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Compact writes a count in at most about four characters, for a status
// line, a figure's axis or a table's column: 950, 12.3k, 4.1M, 2.5G.
func Compact(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 999_950: // Not "1000.0k".
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	case n < 999_950_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + "G"
}

// Dollars writes an amount in USD: cents above a dollar, four significant
// digits below, where an agent's costs mostly are, written out in full
// (never as 1.234e-05).
func Dollars(usd float64) string {
	if usd >= 1 {
		return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	}
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(usd, 'g', 4, 64), 64)
	return "$" + strconv.FormatFloat(rounded, 'f', -1, 64)
}

// Reported says what an agent reported (v), or that it reported nothing
// (nil), which is not 0.
func Reported[T fmt.Stringer](v *T) string {
	if v == nil {
		return "not reported"
	}
	return (*v).String()
}
