package ptyproxy

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// prepareMaster makes the master nonblocking at the descriptor: it is
// outside Go's poller (see unpoll), and the reader reads it until EAGAIN
// and waits in an epoll set of its own only when it is empty (see read).
func prepareMaster(master *os.File) error {
	if err := syscall.SetNonblock(int(master.Fd()), true); err != nil {
		return fmt.Errorf("cannot set up the pseudo-terminal (nonblocking): %w", err)
	}
	return nil
}

// withDeathSignal makes a SIGKILLed wrapper take the agent with it; the
// PTY hangup alone spares an agent that handles SIGHUP.
func withDeathSignal(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	a.Pdeathsig = syscall.SIGKILL
	return a
}

// The ioctls that read and set a terminal's attributes.
const getTermios, setTermios = unix.TCGETS, unix.TCSETS

// fionread is the ioctl that says how many bytes a pipe holds (FIONREAD).
const fionread = unix.TIOCINQ

// closeSlave drops the parent's slave copy once the agent is reaped, so
// the master reads EIO as soon as no descendant holds the PTY either.
func (p *proc) closeSlave() { p.dropSlave() }
