package sessionlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A logDir is the directory the session logs of a log dir are in, open,
// and proved writable by the user alone (see openDir). Every file the
// wrapper creates, renames or removes there is named relative to the open
// directory, so what was proved is what is written: a link or a directory
// put in its place after the proof changes nothing. openDir is the only way
// to one; TestEveryLogFileChangeIsInItsDir keeps every creation, rename and
// removal of the module here.
type logDir struct {
	path string // as given, for messages and the paths handed out
	f    *os.File
}

// openDir opens the directory the session logs of log dir dir go in,
// making it first when create is set. It is dir itself when dir is the
// user's and no one else may write into it. When others may (/tmp, a
// shared group directory, another user's), it is a private directory in
// it named for the user, cursor-wrap-UID, which must be the user's own, a
// directory (not a link) and closed to others (0700): logs hold prompts,
// and are not left where others can read, replace or remove them. A
// directory the wrapper did not create is never re-moded.
func openDir(dir string, create bool) (*logDir, error) {
	if create {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
		}
	}
	// The directory the user named may be a link of theirs: followed.
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	named := &logDir{path: dir, f: os.NewFile(uintptr(fd), dir)}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		named.close()
		return nil, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if !shared(st) {
		return named, nil
	}
	defer named.close()
	name := fmt.Sprintf("cursor-wrap-%d", os.Geteuid())
	private := filepath.Join(dir, name)
	if create {
		if err := unix.Mkdirat(fd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, &os.PathError{Op: "mkdir", Path: private, Err: err}
		}
	}
	refused := fmt.Errorf("%s is shared with other users, and %s is not a private directory of yours: not using the session logs there (set log_dir to a directory of your own)", dir, private)
	pfd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, &os.PathError{Op: "open", Path: private, Err: err}
	case err != nil:
		return nil, refused // A link (ELOOP), a file (ENOTDIR), another's (EACCES).
	}
	d := &logDir{path: private, f: os.NewFile(uintptr(pfd), private)}
	if err := unix.Fstat(pfd, &st); err != nil || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		d.close()
		return nil, refused
	}
	return d, nil
}

// shared reports whether others than the user may write into a directory.
func shared(st unix.Stat_t) bool {
	perm := st.Mode & 0o777
	return int(st.Uid) != os.Geteuid() || perm&0o002 != 0 || perm&0o020 != 0 && int(st.Gid) != os.Getegid()
}

func (d *logDir) close() { d.f.Close() }

// join is the path of a file in the directory.
func (d *logDir) join(name string) string { return filepath.Join(d.path, name) }

// create creates a new file, one that did not exist, for writing.
func (d *logDir) create(name string) (*os.File, error) {
	fd, err := unix.Openat(int(d.f.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: d.join(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.join(name)), nil
}

// rename renames a file unless the new name exists (then EEXIST), and
// makes the rename survive a crash.
func (d *logDir) rename(old, new string) error {
	if err := renameNoReplace(int(d.f.Fd()), old, new); err != nil {
		return err
	}
	_ = d.f.Sync() // Best effort: the rename is done either way.
	return nil
}

// remove removes a file unless another process holds it open with a lock
// (a log still being written): then it reports false.
func (d *logDir) remove(name string) (bool, error) {
	fd, err := unix.Openat(int(d.f.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &os.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	if err := unix.Unlinkat(int(d.f.Fd()), name, 0); err != nil {
		return false, &os.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return true, nil
}

// logs returns the names of the session logs in the directory, newest
// first (see newestFirst).
func (d *logDir) logs(now time.Time) ([]string, error) {
	// Read through a descriptor of its own: reading moves the offset.
	fd, err := unix.Openat(int(d.f.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	all, err := f.Readdirnames(-1)
	var names []string
	for _, n := range all {
		if strings.HasPrefix(n, "cursor-wrap-") && strings.HasSuffix(n, ".jsonl") {
			names = append(names, n)
		}
	}
	newestFirst(names, now)
	return names, err
}

// futureSlack is how far ahead of the clock a log's start may be and still
// be trusted: another process's log, started as this one read the clock.
const futureSlack = time.Minute

// newestFirst sorts log names by the start time in them, newest first. A
// start later than now was written while the clock was wrong (ahead, then
// set back): it is not trusted, and sorts as oldest, so that it never
// keeps the run that just ended from being the newest, or gets that run's
// log pruned in its place.
func newestFirst(names []string, now time.Time) {
	limit := now.Add(futureSlack).UnixMilli()
	key := func(name string) (bool, int64) {
		ms := startOf(name)
		return ms <= limit, ms
	}
	slices.SortStableFunc(names, func(a, b string) int {
		ta, ma := key(a)
		tb, mb := key(b)
		switch {
		case ta != tb && ta:
			return -1
		case ta != tb:
			return 1
		case ma > mb:
			return -1
		case ma < mb:
			return 1
		}
		return 0
	})
}

// startOf reads the start time, in Unix milliseconds, out of a log's name.
func startOf(name string) int64 {
	rest := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "cursor-wrap-"), ".jsonl")
	ms, _, _ := strings.Cut(rest, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return n
}

// List returns the session logs of the log dir dir, newest first (a log
// named for a start later than now last: see newestFirst). A directory
// refused for writing (see openDir) is not read either: it lists none.
func List(dir string) []string {
	d, err := openDir(dir, false)
	if err != nil {
		return nil
	}
	defer d.close()
	names, _ := d.logs(time.Now())
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = d.join(n)
	}
	return paths
}

// Prune removes the oldest session logs of the log dir dir so that at most
// keep remain (keep 0 keeps all), in the order List gives. A log whose
// attempt is still running, in this process or another, is never removed:
// its writer holds a lock on it. A directory refused for writing is left
// as it is, and said so.
func Prune(dir string, keep int) error {
	if keep <= 0 {
		return nil
	}
	d, err := openDir(dir, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.close()
	names, err := d.logs(time.Now())
	errs := []error{err}
	for _, n := range names[min(keep, len(names)):] {
		if _, err := d.remove(n); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Probe proves that session logs can be written in the log dir dir, as a
// run would write them (making it when it is missing): it creates a file
// there and removes it. It returns the directory the logs go in.
func Probe(dir string) (string, error) {
	d, err := openDir(dir, true)
	if err != nil {
		return "", err
	}
	defer d.close()
	name := fmt.Sprintf(".probe-%d-%d", os.Getpid(), time.Now().UnixNano())
	f, err := d.create(name)
	if err != nil {
		return d.path, err
	}
	f.Close()
	_, err = d.remove(name)
	return d.path, err
}

// Running reports whether a session log's attempt is still running: its
// writer, in this process or another, still holds it.
func Running(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB), unix.EWOULDBLOCK)
}
