package ptyproxy

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readerOS is what reading a blocking master needs on macOS (see
// prepareMaster): the deadline, kept here since SetReadDeadline does
// nothing to it, and a pipe whose read end wakes the wait when the
// deadline changes.
type readerOS struct {
	deadline atomic.Int64 // Unix ns, 0 for none
	wakeR    *os.File     // the reader's own
	wakeFD   int          // wakeR's descriptor
	wakeW    atomic.Pointer[os.File]
}

// read waits with select(2) until the master has bytes or the deadline
// passes, then reads what it holds, read after read, while select says
// more is there right now and buf has room. A read is made only when
// select said it would not block.
func (r *reader) read(buf []byte) (n int, err error) {
	if r.wakeR == nil {
		if err := r.openWake(); err != nil {
			return 0, err
		}
	}
	defer func() {
		if err != nil {
			r.closeWake()
		}
	}()
	var rerr error
	cerr := r.raw.Control(func(fd uintptr) {
		for n < len(buf) {
			ready, err := r.wait(int(fd), n > 0)
			if err != nil || !ready {
				rerr = err
				return
			}
			m, err := syscall.Read(int(fd), buf[n:])
			switch {
			case err == syscall.EINTR:
				continue
			case err != nil:
				rerr = err
				return
			case m == 0:
				rerr = io.EOF
				return
			}
			n += m
		}
	})
	if rerr != nil {
		return n, rerr
	}
	return n, cerr
}

// wait reports whether the master has bytes to read: at once if poll,
// else once it has, or os.ErrDeadlineExceeded when the deadline passes
// first.
func (r *reader) wait(master int, poll bool) (bool, error) {
	for {
		var tv *unix.Timeval
		if poll {
			tv = &unix.Timeval{}
		} else if d := r.deadline.Load(); d != 0 {
			left := time.Until(time.Unix(0, d))
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
		if set.IsSet(r.wakeFD) {
			var b [64]byte
			_, _ = unix.Read(r.wakeFD, b[:]) // Emptied; the deadline is read again above.
		}
		if set.IsSet(master) {
			return true, nil
		}
		if poll {
			return false, nil
		}
	}
}

func (r *reader) openWake() error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	fd := int(pr.Fd()) // Blocking from now on; read only when select says so.
	if fd >= unix.FD_SETSIZE {
		pr.Close()
		pw.Close()
		return errors.New("ptyproxy: too many files open for select")
	}
	r.wakeR, r.wakeFD = pr, fd
	r.wakeW.Store(pw)
	return nil
}

func (r *reader) closeWake() {
	if w := r.wakeW.Swap(nil); w != nil {
		w.Close()
	}
	if r.wakeR != nil {
		r.wakeR.Close()
	}
}

// setDeadline ends a read that has nothing to read by t.
func (r *reader) setDeadline(t time.Time) {
	r.deadline.Store(t.UnixNano())
	if w := r.wakeW.Load(); w != nil {
		_, _ = w.Write([]byte{0}) // Fails only once the reader has ended.
	}
}
