package ptyproxy

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// prepareMaster makes the master nonblocking at the descriptor, outside
// Go's poller. creack/pty opens it on macOS as a blocking file that Go
// does not poll, on purpose: Go's poller uses kqueue there, which does
// not work with a pty master, and reads spin (golang/go#22099, creack/pty
// #52 and #174; tmux's osdep-darwin.c: on macOS kqueue and poll work on
// sockets only). So deadlines and Close do nothing to it. The reader reads
// it with raw read(2) calls until EAGAIN and waits with select(2), as tmux
// does with its nonblocking pty masters on macOS; a read therefore never
// blocks, and the drain's deadline always ends it. select takes
// descriptors below FD_SETSIZE only.
func prepareMaster(master *os.File) error {
	fd := master.Fd() // Not polled by Go: this changes nothing else.
	if fd >= unix.FD_SETSIZE {
		return fmt.Errorf("the pseudo-terminal is descriptor %d, past select's limit of %d: too many files open", fd, unix.FD_SETSIZE)
	}
	if err := unix.SetNonblock(int(fd), true); err != nil {
		return fmt.Errorf("cannot set up the pseudo-terminal (nonblocking): %w", err)
	}
	return nil
}

// withDeathSignal leaves the attributes as they are: macOS has no
// parent-death signal. A SIGKILLed wrapper leaves the agent to the PTY
// hangup (see Init).
func withDeathSignal(a *syscall.SysProcAttr) *syscall.SysProcAttr { return a }

// The ioctls that read and set a terminal's attributes.
const getTermios, setTermios = unix.TIOCGETA, unix.TIOCSETA

// fionread is the ioctl that says how many bytes a pipe holds: FIONREAD,
// _IOR('f', 127, int), which x/sys/unix does not name for darwin.
const fionread = 0x4004667f

// closeSlave keeps the parent's slave copy when the agent is reaped, until
// closeAll: a macOS master can drop what it still buffers once every slave
// descriptor is closed (RELIABILITY §1.2, cited from pexpect#662 and
// vite-task#164, whose fix is this). The read then ends by the drain's
// quiet deadline.
func (p *proc) closeSlave() {}
