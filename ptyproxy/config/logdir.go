package config

import (
	"os"
	"path/filepath"
)

// DefaultLogDir is where session logs go by default: the logs of an
// earlier version's place, ~/.cursor-wrap/logs, while that directory
// exists, so that a user's logs are not split between two places until
// they move them (doctor says how); else $XDG_STATE_HOME/cursor-wrap/logs,
// else ~/.local/state/cursor-wrap/logs. It is "" where there is no home
// directory (see Home) and no XDG_STATE_HOME: never a relative path.
func DefaultLogDir() string {
	if old := OldLogDir(); old != "" {
		if fi, err := os.Stat(old); err == nil && fi.IsDir() {
			return old
		}
	}
	return StateLogDir()
}

// StateLogDir is the XDG place for session logs:
// $XDG_STATE_HOME/cursor-wrap/logs, else ~/.local/state/cursor-wrap/logs.
// A relative XDG_STATE_HOME is ignored, as the XDG spec says; "" where
// there is no home directory either.
func StateLogDir() string {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := Home()
		if err != nil {
			return ""
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "cursor-wrap", "logs")
}

// OldLogDir is where versions before the XDG place wrote session logs,
// "" when there is no home directory.
func OldLogDir() string {
	home, err := Home()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cursor-wrap", "logs")
}
