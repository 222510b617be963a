package ptyproxy

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readerOS is what reading the master needs on Linux beyond the shared
// reader: an epoll set of its own that holds the master alone, armed
// (EPOLLONESHOT) only while the reader waits, and is itself in Go's
// poller. The wait parks the goroutine as a read of a polled file does,
// so a silent agent costs no thread and no wake-ups, and the deadline is
// the poller's; while the reader is busy the master is disarmed, so the
// pieces the tty layer hands it wake nothing. (A thread of its own blocked
// in ppoll(2) instead kept the runtime's sysmon awake: twice the CPU for
// an agent that writes an event every 10 ms.)
type readerOS struct {
	ep    atomic.Pointer[os.File] // nil before the first read and after the last
	epRaw syscall.RawConn
	epFD  int
}

// waitOpen reports whether the epoll set is open.
func (r *reader) waitOpen() bool { return r.ep.Load() != nil }

// openWait makes the epoll set, the master in it disarmed.
func (r *reader) openWait(master int) error {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLONESHOT, Fd: int32(master)}
	if err := unix.EpollCtl(fd, unix.EPOLL_CTL_ADD, master, &ev); err != nil {
		unix.Close(fd)
		return os.NewSyscallError("epoll_ctl", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(fd), "epoll") // Nonblocking: Go polls it.
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return err
	}
	r.epRaw, r.epFD = rc, fd
	r.ep.Store(f)
	// A deadline set before the set existed (see setDeadline).
	if d := r.deadline.Load(); d != 0 {
		_ = f.SetReadDeadline(time.Unix(0, d))
	}
	return nil
}

// wait returns once the master is readable (or hung up: the read says
// which), or os.ErrDeadlineExceeded when the deadline passes first. Arming
// finds a master that became readable since it was last read empty.
func (r *reader) wait(master int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(master)}
	if err := unix.EpollCtl(r.epFD, unix.EPOLL_CTL_MOD, master, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	var evs [1]unix.EpollEvent
	var werr error
	err := r.epRaw.Read(func(fd uintptr) bool {
		for {
			n, err := unix.EpollWait(int(fd), evs[:], 0)
			switch {
			case err == unix.EINTR:
				continue
			case err != nil:
				werr = os.NewSyscallError("epoll_wait", err)
				return true
			}
			// The event, once taken, disarms the master.
			return n > 0
		}
	})
	if werr != nil {
		return werr
	}
	return err
}

// closeWait closes the epoll set once the reader is done with it.
func (r *reader) closeWait() {
	if f := r.ep.Swap(nil); f != nil {
		f.Close()
	}
}

// setDeadline ends a read that has nothing to read by t; a wait under way
// is ended by the poller.
func (r *reader) setDeadline(t time.Time) {
	r.deadline.Store(t.UnixNano())
	if f := r.ep.Load(); f != nil {
		_ = f.SetReadDeadline(t) // Fails only once the reader has ended.
	}
}
