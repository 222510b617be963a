package fakeagent

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// getTermios and setTermios are the ioctls that read and set a terminal's
// attributes.
const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)

// sigIgnored returns the mask of ignored signals in Linux's SigIgn format
// (16 hex digits, signal n at bit n-1), from the process table's
// p_sigignore, which has the same layout.
func sigIgnored() (string, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid())
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%016x", k.Proc.P_sigignore), true
}
