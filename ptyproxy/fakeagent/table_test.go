package fakeagent

import (
	"strings"
	"testing"
)

// TestTable: each step has one name, and the usage lists every step a
// user may write with the arguments it requires.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range table {
		if seen[s.name] {
			t.Errorf("step %q twice: the second is never run", s.name)
		}
		seen[s.name] = true
		if s.does != "" && !strings.Contains(usage(), "\n  "+strings.TrimSpace(s.name+" "+s.args)+" ") {
			t.Errorf("step %q is not in the usage", s.name)
		}
	}
	for _, tc := range []struct {
		args string
		want int
	}{{"", 0}, {"TEXT", 1}, {"N SIZE", 2}, {"FILE [X]", 1}, {"[ignore|chatty]", 0}} {
		if got := (step{args: tc.args}).argc(); got != tc.want {
			t.Errorf("argc of %q = %d, want %d", tc.args, got, tc.want)
		}
	}
}
