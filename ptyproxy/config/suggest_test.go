package config

import "testing"

func TestSuggest(t *testing.T) {
	t.Parallel()
	known := []string{"inspect", "doctor", "config", "shell-init", "demo", "mcp", "idle_timeout", "tick_interval"}
	for _, tc := range []struct{ word, want string }{
		{"inpsect", "inspect"},
		{"inspcet", "inspect"},
		{"docter", "doctor"},
		{"idle_timout", "idle_timeout"},
		{"confg", "config"},
		{"version", ""},
		{"completion", ""},
		{"fix the test", ""},
		{"x", ""},
	} {
		if got := Suggest(tc.word, known); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// TestEditDistance: each kind of edit costs one, a swap of neighbours
// included, in any position and either direction.
func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"abc", "abc", 0},
		{"abc", "abd", 1}, {"abc", "xbc", 1}, {"abc", "abcd", 1}, {"abc", "ab", 1}, {"abc", "bc", 1},
		{"abc", "bac", 1}, {"abc", "acb", 1}, {"abcd", "badc", 2}, {"ca", "abc", 3},
		{"kitten", "sitting", 3}, {"é", "e", 1}, {"日本", "本日", 1},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

// TestSuggestHowClose: a third of the shorter word's length in edits, at
// least one, and the first closest word of those known.
func TestSuggestHowClose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		word  string
		known []string
		want  string
	}{
		{"ab", []string{"xy"}, ""},
		{"ab", []string{"ax"}, "ax"},
		{"abcdef", []string{"abcxyf"}, "abcxyf"},
		{"abcdef", []string{"abxyzf"}, ""},
		{"abcdef", []string{"abcdxx", "abcdex"}, "abcdex"},
		{"abcdef", []string{"abcdex", "abcdey"}, "abcdex"},
		{"abc", nil, ""},
	} {
		if got := Suggest(tc.word, tc.known); got != tc.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", tc.word, tc.known, got, tc.want)
		}
	}
}
