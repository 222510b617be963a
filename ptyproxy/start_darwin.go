package ptyproxy

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// prepareMaster keeps the master as creack/pty opens it on macOS:
// blocking and outside Go's poller, on purpose (a nonblocking master spins
// there: creack/pty#174, golang/go#22099). So deadlines and Close do
// nothing to a read on it; the reader waits with select(2) instead (see
// reader_darwin.go), which takes descriptors below FD_SETSIZE only.
func prepareMaster(master *os.File) error {
	if fd := master.Fd(); fd >= unix.FD_SETSIZE {
		return fmt.Errorf("ptyproxy: pty master is descriptor %d, past select's limit of %d: too many files open", fd, unix.FD_SETSIZE)
	}
	return nil
}

// withDeathSignal leaves the attributes as they are: macOS has no
// parent-death signal. A SIGKILLed wrapper leaves the agent to the PTY
// hangup (see Init).
func withDeathSignal(a *syscall.SysProcAttr) *syscall.SysProcAttr { return a }

// The ioctls that read and set a terminal's attributes.
const getTermios, setTermios = unix.TIOCGETA, unix.TIOCSETA

// closeSlave keeps the parent's slave copy when the agent is reaped, until
// closeAll: once no slave descriptor is open, a macOS master drops what it
// still buffers (its read returns end of file at once; RELIABILITY §1.2).
// The read then ends by the drain's quiet deadline.
func (p *proc) closeSlave() {}
