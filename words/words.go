// Package words writes what the wrapper tells people: durations, offsets
// into a run, counts, money, signal names, the sentences of a verdict, and
// the one rule for showing an agent's text (Display). It is a leaf: every
// package that prints uses it, and it imports none of the module's, so the
// pure core (stream, watchdog) keeps facts and exports no formatting, and
// a figure is written one way wherever it appears.
package words

import (
	"fmt"
	"math"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Duration writes a duration for people: "450ms", "12.3s", "1m23s". One
// under a millisecond is written as it is, never as a 0s it is not.
func Duration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Ago says when something fell due before an instant, d earlier: "at
// the verdict" under a millisecond, else "55s before the verdict".
func Ago(d time.Duration) string {
	if d < time.Millisecond {
		return "at the verdict"
	}
	return Duration(d) + " before the verdict"
}

// Offset writes an instant of a run as the time since its start, to the
// millisecond: "+12.345s". The session log's times are kept to the
// millisecond, so every reader stamps a row the same way.
func Offset(d time.Duration) string {
	return fmt.Sprintf("+%.3fs", d.Seconds())
}

// Clock writes an instant of a long run as the time since its start, to
// the second: "+1:02:03", where "+3723.000s" would be read with a
// calculator.
func Clock(d time.Duration) string {
	sec := int64(math.Round(d.Seconds()))
	return fmt.Sprintf("+%d:%02d:%02d", sec/3600, sec/60%60, sec%60)
}

// Signal names a signal as the user knows it ("SIGINT", not Go's
// "interrupt"), or by number when it has no name.
func Signal(sig os.Signal) string {
	ss, ok := sig.(syscall.Signal)
	if !ok {
		return sig.String()
	}
	if name := unix.SignalName(ss); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(ss))
}
