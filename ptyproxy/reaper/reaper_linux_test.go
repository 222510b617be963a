package reaper

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestLeftoversStopped: a KillGroup child that exits leaving processes
// running, in its group and in a session of their own, holding its stdout
// and stderr, returns at once with its own status and output; the
// leftovers are stopped and counted.
func TestLeftoversStopped(t *testing.T) {
	t.Parallel()
	c := CommandContext(t.Context(), "/bin/sh", "-c", "sleep 30 & echo $!; setsid sleep 30 & echo $!; echo err >&2; exit 3")
	c.KillGroup()
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	start := time.Now()
	err := c.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || errOut.String() != "err\n" || time.Since(start) > leftoverWait {
		t.Errorf("Run = %v after %v, stderr %q", err, time.Since(start), errOut.String())
	}
	pids := strings.Fields(out.String())
	if c.Leftovers != 2 || len(pids) != 2 {
		t.Fatalf("%d leftovers stopped, output %q", c.Leftovers, out.String())
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		// SIGKILL is sent, not yet delivered: give it a moment.
		for deadline := time.Now().Add(10 * time.Second); leftover(pid, -1, c.marker); {
			if time.Now().After(deadline) {
				t.Fatalf("leftover %d still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
