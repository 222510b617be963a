package ptyproxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"cursor-wrap/ptyproxy/reaper"
)

// WinSize is a terminal size in character cells.
type WinSize struct{ Rows, Cols uint16 }

// DefaultWinSize is used when the wrapper has no terminal to copy: a zero
// size makes some programs wrap at column 0.
var DefaultWinSize = WinSize{Rows: 24, Cols: 80}

// proc is a started agent: its PTY master, the pipes' parent ends, and the
// channel its exit status arrives on.
type proc struct {
	pid    int
	master *os.File // see prepareMaster; never call pty.Setsize on it
	slave  *os.File // the parent's copy, held at least until the agent is reaped (closeSlave)
	// slaveName is the slave's path, and stdinInode the stdin pipe's
	// inode: how the agent's fds name its terminal and its stdin.
	slaveName  string
	stdinInode uint64
	stderr     *os.File
	exited     chan exitStatus
	// stdinOpen is set while the agent's stdin is still being fed: the
	// caller's stdin has not ended.
	stdinOpen atomic.Bool
}

type exitStatus struct {
	code   int            // exit code, or -1 when signalled
	signal syscall.Signal // the signal that killed it, 0 if none
}

// start runs the agent under a fresh PTY as its stdout, with stdin and
// stderr as pipes, in a new session whose controlling terminal is the PTY.
func start(o *Options, env []string) (*proc, error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("cannot open a pseudo-terminal: %w", err)
	}
	p := &proc{master: master, slave: slave, exited: make(chan exitStatus, 1)}
	ok := false
	defer func() {
		if !ok {
			p.closeAll()
		}
	}()
	if p.master, err = unpoll(master); err != nil {
		return nil, fmt.Errorf("cannot set up the pseudo-terminal: %w", err)
	}
	if p.slave, err = unpoll(slave); err != nil {
		return nil, fmt.Errorf("cannot set up the pseudo-terminal: %w", err)
	}
	master, slave = p.master, p.slave
	if err := prepareMaster(master); err != nil {
		return nil, err
	}
	// Raw before the agent starts, so not even its first byte is cooked
	// (ONLCR would turn "\n" into "\r\n").
	if err := makeRaw(int(slave.Fd())); err != nil {
		return nil, fmt.Errorf("cannot set up the pseudo-terminal (raw mode): %w", err)
	}
	size := o.WinSize
	if size.Rows == 0 || size.Cols == 0 {
		size = DefaultWinSize
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: size.Rows, Col: size.Cols}); err != nil {
		return nil, fmt.Errorf("cannot set the pseudo-terminal's size: %w", err)
	}

	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("cannot make the agent's stdin pipe: %w", err)
	}
	defer stdinR.Close() // The child has its copy once started.
	var st unix.Stat_t
	if unix.Fstat(int(stdinR.Fd()), &st) == nil {
		p.stdinInode = st.Ino
	}
	p.slaveName = slave.Name()
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdinW.Close()
		return nil, fmt.Errorf("cannot make the agent's stderr pipe: %w", err)
	}
	defer stderrW.Close()
	p.stderr = stderrR

	cmd := reaper.Command(o.Path, o.Args...)
	cmd.Env, cmd.Dir = env, o.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, slave, stderrW
	cmd.SysProcAttr = withDeathSignal(&syscall.SysProcAttr{
		// Setsid makes the agent a group leader, so the whole group can
		// be signalled; adding Setpgid would fail with EPERM. Ctty is
		// the child's fd of the tty (stdout), since stdin is a pipe.
		Setsid:  true,
		Setctty: true,
		Ctty:    1,
	})
	started := make(chan error, 1)
	go func() {
		// Linux's Pdeathsig fires when the thread that forked exits, so
		// fork and wait from one locked thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err != nil {
			return
		}
		err = cmd.Wait()
		p.exited <- statusOf(cmd.ProcessState, err)
	}()
	if err := <-started; err != nil {
		stdinW.Close()
		return nil, startError(o.Path, err)
	}
	p.pid = cmd.Process.Pid
	p.feedStdin(stdinW, o.Stdin)
	ok = true
	return p, nil
}

// unpoll returns a descriptor of f's own that Go's runtime poller does not
// watch, and closes f. Both ends of the PTY leave the poller: the tty layer
// hands the agent's output to the master in pieces of a few KiB and wakes
// the waiters of both ends at each (the parent's slave copy is writable
// again each time the master is read), so in the poller each piece woke
// the runtime: an epoll_wait and a scheduler pass per 4 KiB, a quarter of
// the wrapper's CPU. The reader waits on the master itself (see read),
// and nothing waits on the slave copy, which is only held. f.Fd makes the
// descriptor blocking, which keeps NewFile from polling the copy.
func unpoll(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	name := f.Name()
	f.Close()
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// makeRaw sets the tty raw, ONLCR cleared too. An agent that turns output
// processing back on later (stty sane) is mended by the reader (raw1).
func makeRaw(fd int) error {
	if _, err := term.MakeRaw(fd); err != nil {
		return err
	}
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return err
	}
	t.Oflag &^= unix.ONLCR
	return unix.IoctlSetTermios(fd, setTermios, t)
}

// feedStdin copies the agent's input and closes its stdin at the end. A
// cursor-agent whose stdin stays open never exits after its result, so
// stdin is closed at once when there is nothing to give.
func (p *proc) feedStdin(w *os.File, r io.Reader) {
	if r == nil {
		w.Close()
		return
	}
	p.stdinOpen.Store(true)
	go func() {
		// An agent that exits early makes this fail with EPIPE: harmless,
		// since SIGPIPE is caught, not ignored.
		_, _ = io.Copy(w, r)
		w.Close()
		p.stdinOpen.Store(false)
	}()
}

// statusOf reads the exit status from the wait status: ExitCode is -1 for
// a signalled process and says nothing of which signal.
func statusOf(ps *os.ProcessState, err error) exitStatus {
	if ps == nil {
		return exitStatus{code: -1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitStatus{code: -1, signal: ws.Signal()}
	}
	return exitStatus{code: ps.ExitCode()}
}

// startError classifies a failed start: reaper.ErrNotFound or
// reaper.ErrNotExecutable, wrapped with the path, where that is the cause.
func startError(path string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("%w: %s", reaper.ErrNotFound, path)
	case errors.Is(err, os.ErrPermission), errors.Is(err, syscall.ENOEXEC), errors.Is(err, syscall.EISDIR):
		return fmt.Errorf("%w: %s: %v", reaper.ErrNotExecutable, path, err)
	}
	return fmt.Errorf("cannot start %s: %w", path, err)
}

// resize sets the PTY's size through the master without calling its Fd,
// which would make it blocking again.
func (p *proc) resize(size WinSize) error {
	rc, err := p.master.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	err = rc.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: size.Rows, Col: size.Cols})
	})
	if err != nil {
		return err
	}
	return ioErr
}

// dropSlave closes the parent's slave copy.
func (p *proc) dropSlave() {
	if p.slave != nil {
		p.slave.Close()
		p.slave = nil
	}
}

func (p *proc) closeAll() {
	p.dropSlave()
	p.master.Close()
	if p.stderr != nil {
		p.stderr.Close()
	}
}

// outputCooked reports whether the tty behind fd turns "\n" into "\r\n"
// (OPOST and ONLCR), and if so sets it raw again. An agent or a tool that
// runs stty sane on its terminal turns them back on.
func outputCooked(fd int) bool {
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil || t.Oflag&unix.OPOST == 0 || t.Oflag&unix.ONLCR == 0 {
		return false
	}
	t.Oflag &^= unix.OPOST | unix.ONLCR
	_ = unix.IoctlSetTermios(fd, setTermios, t) // Best effort: the next read looks again.
	return true
}
