package ptyproxy

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// terminating lists the signals whose default action ends a process: each
// ends a run the same way, passed on, the tree stopped, an exit record.
// Left out as on Linux (signals_linux.go says why): SIGPROF, SIGURG,
// SIGXFSZ, SIGKILL, SIGSTOP; SIGIO and SIGINFO are ignored by default on
// macOS.
func terminating() []os.Signal {
	return []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGABRT, syscall.SIGTERM,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGXCPU,
		syscall.SIGEMT, syscall.SIGSYS, syscall.SIGTRAP}
}

// stopSelf stops the wrapper and returns once it is continued. The Go
// runtime keeps its handler installed after signal.Reset, and macOS gives
// Go no way to set the default action back, so the wrapper stops as
// SIGSTOP does (the shell says "suspended (signal)"); unless its process
// group is orphaned, where the kernel would have discarded sig: no shell
// is left to continue it.
func stopSelf(sig syscall.Signal) {
	if orphaned() {
		return
	}
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	if unix.Kill(unix.Getpid(), syscall.SIGSTOP) != nil {
		return
	}
	// SIGSTOP takes effect a moment after kill returns: wait for the
	// continue, or the wrapper would go on before it stopped.
	<-cont
}

// orphaned reports whether the wrapper's process group is orphaned, as
// far as its ancestors tell: the first of them outside the group is not
// in its session.
func orphaned() bool {
	pgrp, sid := unix.Getpgrp(), 0
	if s, err := unix.Getsid(0); err == nil {
		sid = s
	}
	for pid := unix.Getppid(); pid > 1; {
		p, ok := readProc(pid)
		if !ok {
			return true
		}
		if p.PGID != pgrp {
			s, err := unix.Getsid(pid)
			return err != nil || s != sid
		}
		pid = p.PPID
	}
	return true
}
