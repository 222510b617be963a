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
