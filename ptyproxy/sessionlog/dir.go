package sessionlog

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// logsDir returns the directory the session logs of log dir dir are in: dir
// itself, or, when others may write into dir (/tmp, a shared group
// directory, another user's), a private directory in it named for the
// user, cursor-wrap-UID. Logs hold prompts; they are not left where others
// can replace or read them, and a directory the wrapper did not create is
// never re-moded.
func logsDir(dir string) string {
	fi, err := os.Stat(dir)
	if err != nil || !shared(fi) {
		return dir
	}
	return filepath.Join(dir, fmt.Sprintf("cursor-wrap-%d", os.Geteuid()))
}

// shared reports whether others than the user may write into a directory.
func shared(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	perm := fi.Mode().Perm()
	return int(st.Uid) != os.Geteuid() || perm&0o002 != 0 || perm&0o020 != 0 && int(st.Gid) != os.Getegid()
}

// makeDir makes the log directory if it is missing (0700) and returns the
// one the logs go in (see logsDir), which it checks is the user's own and
// private when it is a private directory in a shared one.
func makeDir(dir string) (string, error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
	}
	private := logsDir(dir)
	if private == dir {
		return dir, nil
	}
	if err := os.Mkdir(private, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	fi, err := os.Lstat(private)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s is shared with other users, and %s is not a private directory of yours: not writing session logs there (set log_dir to a directory of your own)", dir, private)
	}
	return private, nil
}
