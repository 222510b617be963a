package ptyproxy

import (
	"os"
	"syscall"
)

// terminating lists the signals whose default action ends a process: each
// ends a run the same way, passed on, the tree stopped, an exit record.
// The Go runtime would end the wrapper with a goroutine dump on some
// (SIGQUIT, SIGABRT) and ignore others (SIGUSR1, SIGALRM), which a process
// manager sends to stop what it runs. Left out: SIGPROF and SIGURG (the
// runtime's own), SIGXFSZ (a log past a file-size limit is a log error,
// reported once, not the end of a run), SIGIO (asynchronous I/O, not a
// request to stop), SIGKILL and SIGSTOP (cannot be caught).
func terminating() []os.Signal {
	sigs := []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGABRT, syscall.SIGTERM,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGXCPU,
		syscall.SIGPWR, syscall.SIGSTKFLT, syscall.SIGSYS, syscall.SIGTRAP}
	// The real-time signals. glibc keeps 32 and 33 for itself, and the Go
	// runtime keeps 34 (musl's SIGSYNCCALL, golang/go#39343): it cannot be
	// caught, and ends the wrapper as it would any program.
	for n := 35; n <= 64; n++ {
		sigs = append(sigs, syscall.Signal(n))
	}
	return sigs
}
