package config

import (
	"errors"
	"os/user"
	"testing"
)

// TestNoHome: without an absolute $HOME the password database's home is
// used; with neither there is no home, and the error says why and what to
// set, never a path relative to the working directory.
func TestNoHome(t *testing.T) {
	t.Parallel()
	noEntry := func() (*user.User, error) { return nil, errors.New("no entry") }
	relative := func() (*user.User, error) { return &user.User{HomeDir: "home"}, nil }
	entry := func() (*user.User, error) { return &user.User{HomeDir: "/home/u"}, nil }
	const rest = ", and the password database has no home directory for this user: set HOME (or the paths: --config, --log-dir)"
	for _, tc := range []struct {
		home    string
		current func() (*user.User, error)
		want    string
		err     string
	}{
		{"/h", noEntry, "/h", ""},
		{"", entry, "/home/u", ""},
		{"rel", entry, "/home/u", ""},
		{"", noEntry, "", "$HOME: not set" + rest},
		{"", relative, "", "$HOME: not set" + rest},
		{"rel", noEntry, "", `$HOME: "rel", not an absolute path` + rest},
	} {
		getenv := func(k string) string {
			if k == "HOME" {
				return tc.home
			}
			return ""
		}
		home, err := homeOf(getenv, tc.current)
		if home != tc.want || (err == nil) != (tc.err == "") || (err != nil && (err.Error() != tc.err || !errors.Is(err, ErrConfig))) {
			t.Errorf("HOME=%q: %q, %v; want %q, %q", tc.home, home, err, tc.want, tc.err)
		}
	}
}
