package ptyproxy

import (
	"encoding/binary"
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
// an agent that writes an event every 10 ms.) An eventfd in the set wakes
// the wait when a flush is asked for (order.go).
type readerOS struct {
	ep    atomic.Pointer[os.File] // nil before the first read and after the last
	epRaw syscall.RawConn
	epFD  int

	wakeW  atomic.Pointer[os.File] // the eventfd, for the askers; nil when ep is
	wakeFD int
}

// waitOpen reports whether the epoll set is open.
func (r *reader) waitOpen() bool { return r.ep.Load() != nil }

// openWait makes the epoll set, the master in it disarmed, and the eventfd
// that wakes it.
func (r *reader) openWait(master int) (err error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	// Blocking, so that Go does not poll it: only the epoll set watches it,
	// and a write never blocks.
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return os.NewSyscallError("eventfd", err)
	}
	defer func() {
		if err != nil {
			unix.Close(fd)
			unix.Close(wake)
		}
	}()
	ev := unix.EpollEvent{Events: unix.EPOLLONESHOT, Fd: int32(master)}
	if err := unix.EpollCtl(fd, unix.EPOLL_CTL_ADD, master, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	ev = unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake)}
	if err := unix.EpollCtl(fd, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(fd), "epoll") // Nonblocking: Go polls it.
	rc, _ := f.SyscallConn()              // Fails only for a closed file.
	r.epRaw, r.epFD = rc, fd
	r.wakeFD = wake
	r.wakeW.Store(os.NewFile(uintptr(wake), "eventfd"))
	r.ep.Store(f)
	// A deadline set before the set existed (see setDeadline).
	if d, ok := r.deadline.get(); ok {
		_ = f.SetReadDeadline(d)
	}
	return nil
}

// wait returns once the master is readable (or hung up: the read says
// which) with true, or once a flush is asked for with false, or
// os.ErrDeadlineExceeded when the deadline passes first. Arming finds a
// master that became readable since it was last read empty.
func (r *reader) wait(master int) (bool, error) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(master)}
	if err := unix.EpollCtl(r.epFD, unix.EPOLL_CTL_MOD, master, &ev); err != nil {
		return false, os.NewSyscallError("epoll_ctl", err)
	}
	var evs [2]unix.EpollEvent
	var werr error
	readable := false
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
			for _, ev := range evs[:n] {
				if int(ev.Fd) == r.wakeFD {
					var count [8]byte
					_, _ = unix.Read(r.wakeFD, count[:]) // Readable: does not block.
				} else {
					// The event, once taken, disarms the master.
					readable = true
				}
			}
			return n > 0
		}
	})
	if werr != nil {
		return false, werr
	}
	return readable, err
}

// wake wakes the wait under way, or the next one, for a flush; once the
// reader has ended, it does nothing.
func (r *reader) wake() {
	if w := r.wakeW.Load(); w != nil {
		_, _ = w.Write(eventfdOne) // Fails only once closed.
	}
}

// eventfdOne is what a write adds to an eventfd's count: 1.
var eventfdOne = binary.NativeEndian.AppendUint64(nil, 1)

// closeWait closes the epoll set once the reader is done with it.
func (r *reader) closeWait() {
	if f := r.ep.Swap(nil); f != nil {
		f.Close()
	}
	if w := r.wakeW.Swap(nil); w != nil {
		w.Close()
	}
}

// setDeadline ends a read that has nothing to read by t; a wait under way
// is ended by the poller.
func (r *reader) setDeadline(t time.Time) {
	r.deadline.set(t)
	if f := r.ep.Load(); f != nil {
		_ = f.SetReadDeadline(t) // Fails only once the reader has ended.
	}
}
