// Package testenv decides what a test does when the machine lacks
// something it needs (a program, a device, the npm registry): on a
// developer's machine it skips, saying why; in CI on Linux, where
// everything the suite needs is installed, it fails, saying why, so that a
// green CI run means every check ran.
package testenv

import (
	"os"
	"runtime"
	"testing"
)

// InCI reports whether the tests run in CI on Linux: CI is set (GitHub
// Actions and .ci/run set it) and not "0" or "false". GitHub sets CI on
// macOS too, where the Linux-only checks skip by design.
func InCI() bool {
	ci := os.Getenv("CI")
	return runtime.GOOS == "linux" && ci != "" && ci != "0" && ci != "false"
}

// SkipOutsideCI skips t with the message, or fails it with the message in
// CI on Linux (see InCI).
func SkipOutsideCI(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("in CI on Linux this check must run: "+format, args...)
	} else {
		t.Skipf(format, args...)
	}
}
