package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstWrongKeyNamed: of several wrong keys, the first in the file is
// named, every time (a map's order named a random one).
func TestFirstWrongKeyNamed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	text := "idle_timeout = \"2m\"\nidel_timeout = \"1m\"\nkill_grace = \"3s\"\nmax_concurent = 2\nwarn_befor = \"5s\"\n[mcp]\nmax_concurent = 3\nnope = 1\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := ReadFile(path); err == nil || !strings.HasPrefix(err.Error(), path+":2: unknown key \"idel_timeout\"") {
			t.Fatalf("error %v, want the key on line 2", err)
		}
	}
	if err := os.WriteFile(path, []byte("[mcp]\nmax_concurent = 3\nnope = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := ReadFile(path); err == nil || !strings.HasPrefix(err.Error(), path+":2: unknown key \"max_concurent\" in [mcp]") {
			t.Fatalf("error %v, want [mcp]'s key on line 2", err)
		}
	}
}
