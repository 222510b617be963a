package ptyproxy

import (
	"io"
	"syscall"
	"time"
)

// readerOS is what reading the master needs beyond the shared reader:
// nothing on Linux, where the master is nonblocking and in the poller.
type readerOS struct{}

// read reads what the master holds, read after read, until it has nothing
// more right now or buf is full, waiting only while nothing came. A PTY
// hands out at most 4 KiB a read: taken one by one, each read would cost a
// stdout write, a batch and a wake-up of the session loop. Waiting for
// nothing extra, coalescing adds no latency.
func (r *reader) read(buf []byte) (int, error) {
	n := 0
	var rerr error
	err := r.raw.Read(func(fd uintptr) bool {
		for n < len(buf) {
			m, e := syscall.Read(int(fd), buf[n:])
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return n > 0 // false: wait until the master is readable
			case e != nil:
				rerr = e
				return true
			case m == 0:
				rerr = io.EOF
				return true
			}
			n += m
		}
		return true
	})
	if rerr != nil {
		return n, rerr
	}
	return n, err
}

// setDeadline ends a read that has nothing to read by t.
func (r *reader) setDeadline(t time.Time) {
	_ = r.master.SetReadDeadline(t) // Fails only for a closed master.
}
