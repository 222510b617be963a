package ptyproxy

import (
	"errors"
	"math"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/reaper"
)

// Init prepares the process to run agents; call it once before Run.
//
// It makes the wrapper a child subreaper, so a descendant that escaped
// with setsid and lost its parent reparents to the wrapper, where it can
// still be found and killed, and reaps those orphans as they exit. It marks
// inherited file descriptors close-on-exec, so the agent cannot hold open
// a pipe the wrapper's own caller is waiting on.
func Init() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return errors.New("cannot become a child subreaper (so that the agent's whole process tree can be found and killed): " + err.Error())
	}
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err != nil {
		// Before Linux 5.11: one descriptor at a time.
		entries, _ := os.ReadDir("/proc/self/fd")
		for _, e := range entries {
			if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
				_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC) // Best effort.
			}
		}
	}
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	go func() {
		for range chld {
			reapOrphans()
		}
	}()
	return nil
}

// reapOrphans collects the exit status of the wrapper's orphans that
// have exited.
func reapOrphans() { reaper.Reap(ownChildren) }

// signalExact signals the process p names, never one that took its pid
// since: the pidfd pins the process, then its start time is checked.
func signalExact(p procInfo, sig syscall.Signal) error {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		if cur, ok := readStat(p.pid); !ok || cur.start != p.start {
			return errRecycled
		}
		return unix.Kill(p.pid, sig)
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if cur, ok := readStat(p.pid); !ok || cur.start != p.start {
		return errRecycled
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0)
}
