package config

import (
	"os"
	"path/filepath"
)

// DefaultLogDir is where session logs go by default: the logs of an
// earlier version's place, ~/.cursor-wrap/logs, while that directory
// exists, so that a user's logs are not split between two places until
// they move them (doctor says how); else $XDG_STATE_HOME/cursor-wrap/logs,
// else ~/.local/state/cursor-wrap/logs.
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
// A relative XDG_STATE_HOME is ignored, as the XDG spec says.
func StateLogDir() string {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, _ := os.UserHomeDir()
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "cursor-wrap", "logs")
}

// OldLogDir is where versions before the XDG place wrote session logs,
// "" when there is no home directory.
func OldLogDir() string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".cursor-wrap", "logs")
}
