//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// barePTY is the physical limit of a PTY design: the command's stdout is
// a raw PTY slave, and the master is copied to our stdout by the smallest
// loop that forwards as any PTY reader must: what the master holds (a PTY
// hands out at most 4 KiB a read), read until it is empty or 64 KiB came,
// in one write(2). No runtime poller (the master's fd is taken out of it,
// or each chunk the tty layer pushes would wake it), no deadlines, no line
// splitting. What the wrapper costs beyond this is the wrapper's, not the
// PTY's. (One write per 4 KiB read instead cost a quarter more CPU and
// wall time, waking the reader downstream 16 times as often: a baseline
// the wrapper beat.)
func barePTY(args []string) int {
	argv := afterDashes(args)
	if len(argv) == 0 {
		return fatal("barepty: no command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	master, err := startOnPTY(cmd)
	if err != nil {
		return fatal("barepty: %v", err)
	}
	// A descriptor of our own; closing the *os.File takes the master out of
	// the runtime's poller.
	mfd, err := unix.Dup(int(master.Fd()))
	master.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		return fatal("barepty: %v", err)
	}
	buf := make([]byte, 64<<10)
	for {
		n, end := readAvailable(mfd, buf)
		if n > 0 && writeAll(1, buf[:n]) != nil {
			break // Our reader went away; the child gets EIO or SIGHUP.
		}
		if end {
			break // EIO: every slave fd is closed.
		}
	}
	unix.Close(mfd)
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return fatal("barepty: %v", err)
	}
	return 0
}

// startOnPTY starts cmd with its stdout on a fresh raw PTY, in a new
// session whose controlling terminal that PTY is, as the wrapper does, and
// returns the (blocking) master. Stdin is /dev/null unless cmd says
// otherwise. The parent's slave copy is closed once the child has its own,
// so the master reads EIO as soon as the child's side is gone; Linux hands
// out what is buffered before that EIO.
func startOnPTY(cmd *exec.Cmd) (*os.File, error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer slave.Close()
	if _, err := term.MakeRaw(int(slave.Fd())); err != nil {
		master.Close()
		return nil, err
	}
	cmd.Stdout = slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1}
	if err := cmd.Start(); err != nil {
		master.Close()
		return nil, err
	}
	return master, nil
}

// readAvailable reads until buf is full or the master is empty: the first
// read blocks (waking as soon as bytes come, as a lone read(2) would), the
// rest do not (O_NONBLOCK for them only). end reports the end of the
// stream (EIO, once every slave fd is closed).
func readAvailable(fd int, buf []byte) (n int, end bool) {
	for {
		m, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			return 0, true
		}
		n = m
		break
	}
	if n == len(buf) || unix.SetNonblock(fd, true) != nil {
		return n, false
	}
	defer func() { _ = unix.SetNonblock(fd, false) }()
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			return n, false
		case err != nil || m <= 0:
			return n, true
		default:
			n += m
		}
	}
	return n, false
}

func writeAll(fd int, p []byte) error {
	for len(p) > 0 {
		n, err := unix.Write(fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}
