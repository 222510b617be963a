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
// loop there is. The master stays blocking (creack/pty leaves it so) and
// is read with read(2) straight on its fd: no poller, no deadlines, no
// line splitting, one write(2) per read. What the wrapper costs beyond
// this is the wrapper's, not the PTY's.
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
	mfd := int(master.Fd())
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(mfd, buf)
		if n > 0 && writeAll(1, buf[:n]) != nil {
			break // Our reader went away; the child gets EIO or SIGHUP.
		}
		if err == unix.EINTR {
			continue
		}
		if n <= 0 {
			break // EIO: every slave fd is closed.
		}
	}
	master.Close()
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
