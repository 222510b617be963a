package ptyproxy

import (
	"os"
	"syscall"
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
