package reaper

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// stopLeftovers kills, with SIGKILL, every process in the process group
// pgid and returns how many there were. macOS does not show other
// processes' environments, so a process that left the group is not
// found.
func stopLeftovers(pgid int, _ string) int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil || len(procs) == 0 {
		return 0
	}
	n := 0
	for _, p := range procs {
		if p.Proc.P_stat != 5 /* SZOMB */ && syscall.Kill(int(p.Proc.P_pid), syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
