package ptyproxy

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/proctable"
)

// Init prepares the process to run agents; call it once before Run.
//
// It marks inherited file descriptors close-on-exec, so the agent cannot
// hold open a pipe the wrapper's own caller is waiting on.
//
// # macOS
//
// There is no child subreaper: a descendant whose parent dies goes to
// launchd. The tree is followed through snapshots of the process table
// instead (see tree_darwin.go), and launchd reaps what is killed.
//
// There is no parent-death signal either. When the wrapper itself is
// SIGKILLed, the kernel closes the PTY master, and the hangup sends SIGHUP
// to the session leader only: the agent. An agent that does not handle
// SIGHUP dies of it (Node's default), and its exit sends SIGHUP to its
// process group, the terminal's foreground group. Not covered: an agent
// that handles or ignores SIGHUP keeps running, and so do the tools in a
// session or group of their own (real agents start tools so) and any
// process that ignores SIGHUP; launchd adopts them. This is the BSD tty
// code's behaviour as RELIABILITY §1.5 observed it on Linux; it was not
// tested on a Mac.
func Init() error {
	entries, _ := os.ReadDir("/dev/fd")
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC) // Best effort.
		}
	}
	return nil
}

// reapOrphans has nothing to do on macOS: the wrapper's only children are
// those a reaper.Cmd waits for; orphans go to launchd.
func reapOrphans() {}

// signalExact signals the process p names, never one that took its pid
// since: its start time is read again right before the signal. (macOS has
// no pidfd, so a pid freed and reused within those two system calls is not
// caught; pids are handed out in order up to 99999 before wrapping.)
func signalExact(p procInfo, sig syscall.Signal) error {
	cur, ok := readProc(p.pid)
	if !ok || !proctable.Same(p.id, cur) {
		return errRecycled
	}
	return unix.Kill(p.pid, sig)
}
