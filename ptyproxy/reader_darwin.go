package ptyproxy

import (
	"errors"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// readerOS is what reading the master needs on macOS beyond the shared
// reader: a pipe whose read end wakes the wait when the deadline changes
// or a flush is asked for (no eventfd there).
type readerOS struct {
	wakeR  *os.File // the reader's own
	wakeFD int      // wakeR's descriptor
	wakeW  atomic.Pointer[os.File]
}

// wait returns once the master is readable with true, or once woken (a
// flush asked for, the deadline changed) with false, or
// os.ErrDeadlineExceeded when the deadline passes first. It waits with
// select(2): Go's poller and poll(2) do not work with a pty master on
// macOS (see prepareMaster).
func (r *reader) wait(master int) (bool, error) {
	for {
		var tv *unix.Timeval
		if d, ok := r.deadline.get(); ok {
			left := time.Until(d)
			if left <= 0 {
				return false, os.ErrDeadlineExceeded
			}
			t := unix.NsecToTimeval(left.Nanoseconds())
			tv = &t
		}
		var set unix.FdSet
		set.Set(master)
		set.Set(r.wakeFD)
		if _, err := unix.Select(max(master, r.wakeFD)+1, &set, nil, nil, tv); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return false, err
		}
		woken := set.IsSet(r.wakeFD)
		if woken {
			var b [64]byte
			_, _ = unix.Read(r.wakeFD, b[:]) // Emptied; the caller reads the master again.
		}
		if readable := set.IsSet(master); readable || woken {
			return readable, nil
		}
	}
}

// waitOpen reports whether the pipe is open.
func (r *reader) waitOpen() bool { return r.wakeR != nil }

// openWait opens the pipe.
func (r *reader) openWait(int) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	fd := int(pr.Fd()) // Blocking from now on; read only when select says so.
	if fd >= unix.FD_SETSIZE {
		pr.Close()
		pw.Close()
		return errors.New("too many files open for select")
	}
	r.wakeR, r.wakeFD = pr, fd
	r.wakeW.Store(pw)
	return nil
}

// closeWait closes the pipe once the reader is done with it.
func (r *reader) closeWait() {
	if w := r.wakeW.Swap(nil); w != nil {
		w.Close()
	}
	if r.wakeR != nil {
		r.wakeR.Close()
		r.wakeR = nil
	}
}

// setDeadline ends a read that has nothing to read by t, waking a wait
// under way so that it sees t.
func (r *reader) setDeadline(t time.Time) {
	r.deadline.set(t)
	r.wake()
}

// wake wakes the wait under way, or the next one. It never blocks: a full
// pipe wakes the wait already. Once the reader has ended it does nothing.
func (r *reader) wake() {
	w := r.wakeW.Load()
	if w == nil {
		return
	}
	rc, err := w.SyscallConn()
	if err != nil {
		return // Closed: the reader has ended.
	}
	_ = rc.Control(func(fd uintptr) {
		_, _ = unix.Write(int(fd), []byte{0}) // Nonblocking (os.Pipe): EAGAIN when full.
	})
}
