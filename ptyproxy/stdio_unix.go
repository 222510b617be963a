package ptyproxy

import (
	"os"

	"golang.org/x/sys/unix"
)

// ClosedStdio reports which of stdin, stdout and stderr were closed when
// the process started (cursor-wrap … >&-). The Go runtime opens /dev/null
// read-write on each closed one before main (runtime.checkfds), so that no
// later file lands there; a shell's redirection to /dev/null opens it for
// reading or for writing only, so read-write /dev/null is the mark.
func ClosedStdio() (closed [3]bool) {
	var null unix.Stat_t
	if unix.Stat(os.DevNull, &null) != nil {
		return closed
	}
	for fd := range 3 {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Rdev != null.Rdev || st.Mode&unix.S_IFMT != unix.S_IFCHR {
			continue
		}
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil && fl&unix.O_ACCMODE == unix.O_RDWR {
			closed[fd] = true
		}
	}
	return closed
}

// SameTerminal reports whether two descriptors are one terminal, as stdout
// and stderr are in an interactive shell.
func SameTerminal(a, b int) bool {
	var sa, sb unix.Stat_t
	if unix.Fstat(a, &sa) != nil || unix.Fstat(b, &sb) != nil {
		return false
	}
	_, errA := unix.IoctlGetWinsize(a, unix.TIOCGWINSZ)
	return errA == nil && sa.Rdev == sb.Rdev && sa.Rdev != 0
}
