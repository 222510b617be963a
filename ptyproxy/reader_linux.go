package ptyproxy

import (
	"errors"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// readerOS is what reading the master needs on Linux beyond the shared
// reader: an eventfd that wakes the wait when the deadline changes.
type readerOS struct {
	wake   atomic.Pointer[os.File] // the eventfd; nil before the first read and after the last
	wakeFD int                     // its descriptor, for the reader's own use
}

// wait returns once the master is readable (or hung up: the read says
// which), or os.ErrDeadlineExceeded when the deadline passes first. It
// blocks in ppoll(2) on the master and the eventfd: a thread of its own
// while the agent is silent, and no runtime poller woken by each piece of
// output the tty layer hands the master.
func (r *reader) wait(master int) error {
	for {
		var ts *unix.Timespec
		if d := r.deadline.Load(); d != 0 {
			left := time.Until(time.Unix(0, d))
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			t := unix.NsecToTimespec(left.Nanoseconds())
			ts = &t
		}
		fds := [2]unix.PollFd{{Fd: int32(master), Events: unix.POLLIN}, {Fd: int32(r.wakeFD), Events: unix.POLLIN}}
		if _, err := unix.Ppoll(fds[:], ts, nil); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err
		}
		if fds[1].Revents&unix.POLLIN != 0 {
			var b [8]byte
			_, _ = unix.Read(r.wakeFD, b[:]) // Emptied; the deadline is read again above.
		}
		if fds[0].Revents&unix.POLLNVAL != 0 || fds[1].Revents&unix.POLLNVAL != 0 {
			return errors.New("polling the pty: a descriptor is not open")
		}
		if fds[0].Revents != 0 {
			return nil
		}
	}
}

// wakeOpen reports whether the eventfd is open.
func (r *reader) wakeOpen() bool { return r.wake.Load() != nil }

// openWake opens the eventfd, blocking so that Go does not poll it: it is
// read only when ppoll says it holds a count, and a write blocks only on a
// count near 2^64.
func (r *reader) openWake() error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	r.wakeFD = fd
	r.wake.Store(os.NewFile(uintptr(fd), "eventfd"))
	return nil
}

// closeWake closes the eventfd once the reader is done with it. A wakeUp
// that races it writes to a closed *os.File, which fails harmlessly.
func (r *reader) closeWake() {
	if w := r.wake.Swap(nil); w != nil {
		w.Close()
	}
}

// wakeUp makes a wait under way read the deadline again.
func (r *reader) wakeUp() {
	if w := r.wake.Load(); w != nil {
		_, _ = w.Write([]byte{1, 0, 0, 0, 0, 0, 0, 0}) // Fails only once the reader has ended.
	}
}
