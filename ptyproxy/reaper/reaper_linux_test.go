package reaper

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// exited waits until the child pid has exited, leaving it unreaped.
func exited(t *testing.T, pid int) {
	t.Helper()
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
}

// TestReap: Reap takes the status of an exited child nobody waits for,
// never that of a Cmd's.
func TestReap(t *testing.T) {
	t.Parallel()
	c := Command("/bin/sh", "-c", "exit 7")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	orphan := exec.Command("/bin/sh", "-c", "exit 3") // Started as an orphan would be: unregistered.
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	exited(t, c.Process.Pid)
	exited(t, orphan.Process.Pid)
	var seen []int
	Orphans(func() []int { return []int{c.Process.Pid, orphan.Process.Pid} }, func(pids []int) { seen = pids })
	if len(seen) != 1 || seen[0] != orphan.Process.Pid {
		t.Errorf("Orphans = %v, want only the unregistered child, %d", seen, orphan.Process.Pid)
	}
	Reap(func() []int { return []int{c.Process.Pid, orphan.Process.Pid} })

	var ee *exec.ExitError
	if err := c.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("the Cmd's Wait = %v, want its exit status 7", err)
	}
	if err := orphan.Wait(); !errors.Is(err, syscall.ECHILD) {
		t.Errorf("the orphan's Wait = %v, want ECHILD: Reap took its status", err)
	}
}
