package ptyproxy

import (
	"bytes"
	"errors"
	"iter"
	"os"
	"strconv"
	"strings"

	"cursor-wrap/watchdog"

	"golang.org/x/sys/unix"
)

// Whether the agent waits for input, as the kernel tells it: some thread
// of it blocked reading its terminal or its stdin pipe
// (/proc/PID/task/TID/syscall: the call and its first argument, the fd),
// or its event loop's epoll set holding one of them for input
// (/proc/PID/fdinfo/EPFD: a tfd line with EPOLLIN). Every supported agent
// runs an event loop (Node's libuv, Bun, Go's netpoll, Rust's mio), so the
// epoll set is where the wait is usually seen.
//
// # Permissions
//
// /proc/PID/fd and fdinfo need ptrace read access (PTRACE_MODE_READ: the
// same user and a dumpable process, or CAP_SYS_PTRACE); task/*/syscall
// needs attach access (PTRACE_MODE_ATTACH), which Yama's ptrace_scope 1
// grants the wrapper as the agent's ancestor and scopes 2 and 3 refuse.
// Where a file that could show the wait cannot be read and no wait was
// seen, the kernel's answer is unknown.
//
// # Edge-triggered loops
//
// Go's netpoll and Rust's mio add a descriptor to their epoll set once,
// for input and output, when it is opened: an agent that holds its
// terminal in such a set is taken to read it for as long as it holds it.
// libuv (Node) adds it for input only while the program reads.

// inputs reads whether the agent waits for input on its terminal or its
// stdin pipe.
type inputs struct {
	fs       procFiles
	terminal []string // the paths that name the agent's terminal in its fd links
	// The inodes of the terminal's paths and of the stdin pipe, to tell a
	// live epoll entry from one whose fd number was reused; 0 if unknown.
	ttyInodes map[string]uint64
	stdin     uint64 // the stdin pipe's inode; 0 when there is none
}

// newInputs reads the agent's input as the wrapper made it: the PTY slave
// (and /dev/tty, which is that PTY for the agent's session) and the stdin
// pipe's inode.
func newInputs(p *proc) *inputs {
	in := &inputs{fs: kernel, terminal: []string{p.slaveName, "/dev/tty"}, ttyInodes: map[string]uint64{}, stdin: p.stdinInode}
	for _, path := range in.terminal {
		var st unix.Stat_t
		if unix.Stat(path, &st) == nil {
			in.ttyInodes[path] = st.Ino
		}
	}
	return in
}

// look says what the processes in pids (the agent, and its runtime
// process) wait to read: the first wait seen, else none, else unknown,
// always with the error of the first file that could not be read.
func (in *inputs) look(pids []int) (watchdog.Input, error) {
	var denied error
	for _, pid := range pids {
		got, err := in.lookAt(pid)
		if got != watchdog.InputNone {
			return got, err
		}
		if denied == nil {
			denied = err
		}
	}
	if denied != nil {
		return watchdog.InputUnknown, denied
	}
	return watchdog.InputNone, nil
}

// A target is one of a process's fds that is its terminal or its stdin
// pipe.
type target struct {
	input watchdog.Input
	inode uint64 // 0 if unknown
}

// lookAt looks at one process. A process that has gone waits on nothing.
func (in *inputs) lookAt(pid int) (watchdog.Input, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	fds, err := in.fs.names(dir + "fd")
	if err != nil {
		return unlessGone(err)
	}
	targets := map[int]target{}
	var epolls []string
	var denied error
	for _, fd := range fds {
		link, err := in.fs.link(dir + "fd/" + fd)
		if err != nil {
			denied = orGone(denied, err) // Gone: closed since the listing.
			continue
		}
		n, _ := strconv.Atoi(fd)
		pipe, isPipe := strings.CutPrefix(link, "pipe:[")
		switch {
		case link == "anon_inode:[eventpoll]":
			epolls = append(epolls, fd)
		case isPipe:
			if ino, _ := strconv.ParseUint(strings.TrimSuffix(pipe, "]"), 10, 64); ino != 0 && ino == in.stdin {
				targets[n] = target{watchdog.InputStdin, ino}
			}
		default:
			for _, path := range in.terminal {
				if link == path {
					targets[n] = target{watchdog.InputTerminal, in.ttyInodes[path]}
				}
			}
		}
	}
	if len(targets) == 0 {
		return watchdog.InputNone, denied // Nothing to wait on that it could be seen to hold.
	}
	buf := make([]byte, 0, 4096)
	for _, epfd := range epolls {
		b, err := in.fs.read(dir+"fdinfo/"+epfd, buf[:0])
		if err != nil {
			denied = orGone(denied, err)
			continue
		}
		for fd, ino := range epollReads(b) {
			if t, ok := targets[fd]; ok && (ino == 0 || t.inode == 0 || ino == t.inode) {
				return t.input, nil
			}
		}
		buf = b
	}
	tasks, err := in.fs.names(dir + "task")
	if err != nil {
		return watchdog.InputNone, orGone(denied, err)
	}
	for _, tid := range tasks {
		b, err := in.fs.read(dir+"task/"+tid+"/syscall", buf[:0])
		if err != nil {
			denied = orGone(denied, err)
			continue
		}
		if nr, fd, ok := parseSyscall(b); ok && readCall(nr) {
			if t, ok := targets[int(fd)]; ok {
				return t.input, nil
			}
		}
	}
	return watchdog.InputNone, denied
}

// unlessGone says a process whose fds cannot be listed waits on nothing if it
// has gone, and that the kernel does not say otherwise.
func unlessGone(err error) (watchdog.Input, error) {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ESRCH) {
		return watchdog.InputNone, nil
	}
	return watchdog.InputUnknown, err
}

// orGone keeps the first error that is not a file gone with its process
// or thread.
func orGone(first, err error) error {
	if first != nil || errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ESRCH) {
		return first
	}
	return err
}

// readCall reports whether a system call number is a read of a descriptor
// named by its first argument.
func readCall(nr int) bool {
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64, unix.SYS_PREADV, unix.SYS_PREADV2:
		return true
	}
	return false
}

// parseSyscall reads /proc/PID/task/TID/syscall: the number of the call
// the thread is blocked in and its first argument, in hex. ok is false for
// a thread running ("running") or blocked outside a call ("-1 …").
func parseSyscall(b []byte) (nr int, arg0 uint64, ok bool) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, 0, false
	}
	nr, err := strconv.Atoi(string(f[0]))
	if err != nil || nr < 0 {
		return 0, 0, false
	}
	hex, found := bytes.CutPrefix(f[1], []byte("0x"))
	if !found {
		return 0, 0, false
	}
	arg0, err = strconv.ParseUint(string(hex), 16, 64)
	return nr, arg0, err == nil
}

// epollReads yields the target fd of each entry of an epoll fdinfo file
// that waits for input (EPOLLIN), with the target's inode (0 when the
// kernel does not print it):
//
//	tfd:        5 events:       19 data: 7f9b0c000b60  pos:0 ino:61 sdev:d
func epollReads(b []byte) iter.Seq2[int, uint64] {
	return func(yield func(int, uint64) bool) {
		for line := range bytes.Lines(b) {
			rest, ok := bytes.CutPrefix(line, []byte("tfd:"))
			if !ok {
				continue
			}
			f := bytes.Fields(rest)
			if len(f) < 3 || string(f[1]) != "events:" {
				continue
			}
			fd, err := strconv.Atoi(string(f[0]))
			events, err2 := strconv.ParseUint(string(f[2]), 16, 32)
			if err != nil || err2 != nil || fd < 0 || events&unix.EPOLLIN == 0 {
				continue
			}
			var ino uint64
			for _, kv := range f[3:] {
				if v, ok := bytes.CutPrefix(kv, []byte("ino:")); ok {
					ino, _ = strconv.ParseUint(string(v), 16, 64)
				}
			}
			if !yield(fd, ino) {
				return
			}
		}
	}
}

// procFiles is how the input reader reads /proc; a test plays a kernel
// that refuses with it.
type procFiles interface {
	names(dir string) ([]string, error)
	link(path string) (string, error)
	read(path string, buf []byte) ([]byte, error)
}

// kernel is what the input reader reads /proc with.
var kernel procFiles = kernelFiles{}

// kernelFiles reads the real /proc.
type kernelFiles struct{}

func (kernelFiles) names(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (kernelFiles) link(path string) (string, error) { return os.Readlink(path) }

func (kernelFiles) read(path string, buf []byte) ([]byte, error) { return readProc(path, buf) }
