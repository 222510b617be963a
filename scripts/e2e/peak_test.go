package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// peakRSS starts cmd, waits for it, and returns the peak of its own
// memory, VmHWM as /proc shows it, read every few milliseconds while it
// runs. The rusage of the wait cannot be used: Go starts a child sharing
// the test process's memory (CLONE_VM), and Linux keeps the larger peak
// across the child's exec, so it counts the test process's memory.
func peakRSS(t *testing.T, cmd *exec.Cmd) (peak int64, err error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, rerr := os.ReadFile(status); rerr == nil {
			if _, rest, ok := bytes.Cut(b, []byte("\nVmHWM:")); ok {
				field, _, _ := bytes.Cut(rest, []byte("kB"))
				if kb, perr := strconv.ParseInt(string(bytes.TrimSpace(field)), 10, 64); perr == nil {
					peak = max(peak, kb<<10)
				}
			}
		}
		select {
		case err := <-done:
			return peak, err
		case <-tick.C:
		}
	}
}
