package ptyproxy

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
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

// stopSelf stops the wrapper as sig's default action does, and returns
// once it is continued, or at once if the kernel discards sig, as it does
// a stop from the terminal for an orphaned process group (no shell is left
// to continue it). The Go runtime keeps its handler installed after
// signal.Reset, so the default action is set for the raise alone; raised
// at the calling thread, the signal is acted on before tgkill returns.
func stopSelf(sig syscall.Signal) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The kernel's struct sigaction, the handler first (SIG_DFL is 0), on
	// the architectures the wrapper is built for.
	var old [4]uint64
	if sigaction(sig, nil, &old) != nil {
		return
	}
	dfl := old
	dfl[0] = 0
	if sigaction(sig, &dfl, nil) != nil {
		return
	}
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	_ = sigaction(sig, &old, nil)
}

func sigaction(sig syscall.Signal, act, old *[4]uint64) error {
	_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(act)), uintptr(unsafe.Pointer(old)), 8, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
