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

// readerOS is what reading the master needs on macOS (see prepareMaster):
// the deadline, kept here since SetReadDeadline does nothing to a file
// outside Go's poller, and a pipe whose read end wakes the wait when the
// deadline changes.
type readerOS struct {
	deadline atomic.Int64 // Unix ns, 0 for none
	wakeR    *os.File     // the reader's own
	wakeFD   int          // wakeR's descriptor
	wakeW    atomic.Pointer[os.File]
}

// read reads what the master holds, read after read, until it has nothing
// more right now or buf is full, waiting with select(2) only while nothing
// came (see reader_linux.go for why reads are coalesced).
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
		woke := false // select said the master was readable
		for n < len(buf) {
			m, err := syscall.Read(int(fd), buf[n:])
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				if n > 0 {
					return
				}
				if woke {
					// Readable, yet nothing to read (poll(2) does that
					// with FreeBSD ptys, arcan#97): do not spin on it.
					time.Sleep(time.Millisecond)
				}
				if err := r.wait(int(fd)); err != nil {
					rerr = err
					return
				}
				woke = true
				continue
			case err != nil:
				rerr = err
				return
			case m == 0:
				rerr = io.EOF
				return
			}
			n += m
			woke = false
		}
	})
	if rerr != nil {
		return n, rerr
	}
	return n, cerr
}

// wait returns once the master is readable, or os.ErrDeadlineExceeded
// when the deadline passes first.
func (r *reader) wait(master int) error {
	for {
		var tv *unix.Timeval
		if d := r.deadline.Load(); d != 0 {
			left := time.Until(time.Unix(0, d))
			if left <= 0 {
				return os.ErrDeadlineExceeded
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
			return err
		}
		if set.IsSet(r.wakeFD) {
			var b [64]byte
			_, _ = unix.Read(r.wakeFD, b[:]) // Emptied; the deadline is read again above.
		}
		if set.IsSet(master) {
			return nil
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
		return errors.New("too many files open for select")
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
