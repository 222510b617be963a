package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultLogDir checks where logs go: the XDG state dir, else
// ~/.local/state; the old ~/.cursor-wrap/logs while it exists.
func TestDefaultLogDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	if got, want := DefaultLogDir(), filepath.Join(home, ".local/state/cursor-wrap/logs"); got != want {
		t.Errorf("no XDG_STATE_HOME: %s, want %s", got, want)
	}
	t.Setenv("XDG_STATE_HOME", "relative/state")
	if got, want := DefaultLogDir(), filepath.Join(home, ".local/state/cursor-wrap/logs"); got != want {
		t.Errorf("a relative XDG_STATE_HOME: %s, want %s", got, want)
	}
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	if got, want := DefaultLogDir(), filepath.Join(state, "cursor-wrap/logs"); got != want {
		t.Errorf("XDG_STATE_HOME: %s, want %s", got, want)
	}
	old := filepath.Join(home, ".cursor-wrap/logs")
	if err := os.MkdirAll(old, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := DefaultLogDir(); got != old || DefaultConfig().LogDir != old {
		t.Errorf("with %s there: %s", old, got)
	}
}
