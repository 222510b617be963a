package reaper

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// stopLeftovers kills, with SIGKILL, every process that is in the process
// group pgid or carries marker in its environment (so left the group but
// not the tree: setsid, a double fork), and returns how many it found.
// It looks again after each kill, for what they started meanwhile.
func stopLeftovers(pgid int, marker string) int {
	stopped := map[int]bool{}
	for range 10 {
		found := false
		for _, pid := range processes() {
			if stopped[pid] || !leftover(pid, pgid, marker) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				stopped[pid], found = true, true
			}
		}
		if !found {
			break
		}
	}
	return len(stopped)
}

// processes lists the pids in /proc.
func processes() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// leftover reports whether pid is alive (not a zombie) and in group pgid
// or carrying marker.
func leftover(pid, pgid int, marker string) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(stat, ')')
	if err != nil || i < 0 {
		return false
	}
	fields := bytes.Fields(stat[i+1:]) // state, ppid, pgrp, …
	if len(fields) < 3 || fields[0][0] == 'Z' {
		return false
	}
	if group, _ := strconv.Atoi(string(fields[2])); group == pgid {
		return true
	}
	env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if string(kv) == marker {
			return true
		}
	}
	return false
}
