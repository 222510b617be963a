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

// TestLogDirWithoutHome: with no home directory, a log_dir under ~/ or
// the default one (which is then empty) is refused, the error naming
// where log_dir was set; an absolute one needs no home.
func TestLogDirWithoutHome(t *testing.T) {
	t.Parallel()
	noHome := func() (string, error) { return "", &SettingError{"$HOME", "not set"} }
	home := func() (string, error) { return "/h", nil }
	s, _ := Lookup("log_dir")
	for _, tc := range []struct {
		dir  string
		src  Source
		home func() (string, error)
		want string // the error, or the log dir
	}{
		{"/var/log/cw", FromFile, noHome, "/var/log/cw"},
		{"relative/logs", FromFile, noHome, "relative/logs"},
		{"", FromDefault, noHome, "log_dir: no home directory for the session logs: $HOME: not set"},
		{"~/logs", FromFile, noHome, "log_dir: no home directory for the session logs: $HOME: not set"},
		{"~/logs", FromFlag, noHome, "--log-dir: no home directory for the session logs: $HOME: not set"},
		{"~/logs", FromEnv, noHome, "$CURSOR_WRAP_LOG_DIR: no home directory for the session logs: $HOME: not set"},
		{"~/logs", FromEnv, home, "/h/logs"},
		{"~logs", FromFile, noHome, "~logs"},
	} {
		c := DefaultConfig()
		if tc.src == FromDefault {
			c.LogDir = tc.dir
		} else {
			_ = c.set(s, tc.dir, tc.src)
		}
		var got string
		if err := c.resolveLogDir(tc.home); err != nil {
			got = err.Error()
		} else {
			got = c.LogDir
		}
		if got != tc.want {
			t.Errorf("log_dir %q from %s: %q, want %q", tc.dir, tc.src, got, tc.want)
		}
	}
}
