package reaper

import "testing"

// TestKept: the first bytes are kept up to the bound, across writes; the
// rest is counted and said; every write takes all it is given.
func TestKept(t *testing.T) {
	t.Parallel()
	k := NewKept(5)
	for _, p := range []string{"ab", "cdef", "", "ghij"} {
		if n, err := k.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if got := string(k.Bytes()); got != "abcde\n… [5 more bytes not kept]\n" {
		t.Errorf("Bytes() = %q", got)
	}
	if got := string(NewKept(5).Bytes()); got != "" {
		t.Errorf("nothing written: %q", got)
	}
}
