package testenv

import (
	"fmt"
	"runtime"
	"testing"
)

func TestInCI(t *testing.T) {
	for _, tc := range []struct {
		ci   string
		want bool
	}{
		{"", false},
		{"0", false},
		{"false", false},
		{"true", runtime.GOOS == "linux"},
		{"1", runtime.GOOS == "linux"},
	} {
		t.Setenv("CI", tc.ci)
		if got := InCI(); got != tc.want {
			t.Errorf("CI=%q: InCI() = %v, want %v", tc.ci, got, tc.want)
		}
	}
}

// verdict records whether a test was failed or skipped, and with what.
type verdict struct {
	testing.TB
	failed, skipped string
}

func (v *verdict) Helper()                        {}
func (v *verdict) Fatalf(format string, a ...any) { v.failed = fmt.Sprintf(format, a...) }
func (v *verdict) Skipf(format string, a ...any)  { v.skipped = fmt.Sprintf(format, a...) }

func TestSkipOutsideCI(t *testing.T) {
	t.Setenv("CI", "")
	var v verdict
	SkipOutsideCI(&v, "no %s here", "npx")
	if v.skipped != "no npx here" || v.failed != "" {
		t.Errorf("outside CI: skipped %q, failed %q", v.skipped, v.failed)
	}

	t.Setenv("CI", "true")
	v = verdict{}
	SkipOutsideCI(&v, "no %s here", "npx")
	want := verdict{skipped: "no npx here"}
	if runtime.GOOS == "linux" {
		want = verdict{failed: "in CI on Linux this check must run: no npx here"}
	}
	if v != want {
		t.Errorf("CI=true on %s: skipped %q, failed %q", runtime.GOOS, v.skipped, v.failed)
	}
}
