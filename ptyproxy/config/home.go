package config

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
)

// Home is the user's home directory, always an absolute path: $HOME when
// it is one, else the password database's entry for the user. A path built
// on an empty or relative home would land in the working directory, where
// a repository's own .config would take effect and the session logs would
// be written into it; so with no home the caller refuses to run.
func Home() (string, error) { return homeOf(os.Getenv, user.Current) }

// homeOf is Home with the environment and the password database's entry
// for the user given.
func homeOf(getenv func(string) string, current func() (*user.User, error)) (string, error) {
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return home, nil
	}
	u, err := current()
	if err == nil && filepath.IsAbs(u.HomeDir) {
		return u.HomeDir, nil
	}
	why := "not set"
	if home := getenv("HOME"); home != "" {
		why = fmt.Sprintf("%q, not an absolute path", home)
	}
	return "", &SettingError{"$HOME", why + ", and the password database has no home directory for this user: set HOME (or the paths: --config, --log-dir)"}
}
