package ptyproxy

import "golang.org/x/sys/unix"

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
