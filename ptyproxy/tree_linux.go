package ptyproxy

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"cursor-wrap/watchdog"
)

// procInfo is what /proc/PID/stat says of one process.
type procInfo struct {
	pid, ppid, pgid int
	sid             int
	state           byte
	start           uint64 // start time in clock ticks since boot: with pid, an identity
	cpu             uint64 // user+system ticks, its reaped children's included
}

// ticksPerSecond is USER_HZ, the unit of /proc's CPU times on Linux.
const ticksPerSecond = 100

func readStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	// The command name may hold spaces and parentheses: fields resume
	// after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+2:])
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 20 {
		return procInfo{}, false
	}
	num := func(n int) uint64 {
		v, _ := strconv.ParseUint(string(f[n-3]), 10, 64)
		return v
	}
	return procInfo{
		pid:   pid,
		ppid:  int(num(4)),
		pgid:  int(num(5)),
		sid:   int(num(6)),
		state: f[0][0],
		start: num(22),
		cpu:   num(14) + num(15) + num(16) + num(17),
	}, true
}

// children lists the children of every thread of pid.
func children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// readChar returns the bytes a process has read (rchar), 0 if unknown.
func readChar(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("rchar: ")); ok {
			n, _ := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n
		}
	}
	return 0
}

// hasMarker reports whether a process's environment holds the attempt's
// marker, which every descendant inherits unless it clears its environment.
func hasMarker(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// A tree finds an attempt's processes: the agent's descendants while it
// lives, and the orphans that reparented to the wrapper (a child subreaper)
// when their parents died, with their descendants.
type tree struct {
	agent  int
	marker string // "NAME=VALUE" in every process the attempt started
	// claimAll claims every orphan of the wrapper, not just marked ones:
	// right when one attempt at a time runs in the process.
	claimAll bool
}

// newTree follows the attempt whose agent is pid.
func newTree(pid int, marker string, claimAll bool) *tree {
	return &tree{agent: pid, marker: marker, claimAll: claimAll}
}

// observe lets a tree remember processes while output flows, where
// orphans are lost from sight (macOS); here they reparent to the wrapper,
// so every snapshot finds them without memory.
func (t *tree) observe(time.Time) {}

// exited reports whether pid has exited: a zombie not reaped yet, or gone.
func exited(pid int) bool {
	info, ok := readStat(pid)
	return !ok || info.state == 'Z' || info.state == 'X'
}

// snapshot returns the attempt's live processes, the agent first if alive.
// Zombies are skipped: they hold nothing and cannot be signalled.
func (t *tree) snapshot() []procInfo {
	var out []procInfo
	seen := map[int]bool{}
	var walk func(pid int)
	walk = func(pid int) {
		if seen[pid] {
			return
		}
		seen[pid] = true
		if info, ok := readStat(pid); ok && info.state != 'Z' && info.state != 'X' {
			out = append(out, info)
		}
		for _, c := range children(pid) {
			walk(c)
		}
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(t.agent)); err == nil {
		walk(t.agent)
	}
	for _, pid := range t.orphans() {
		walk(pid)
	}
	return out
}

// orphans lists the wrapper's own children that belong to this attempt.
func (t *tree) orphans() []int {
	startMu.Lock()
	defer startMu.Unlock()
	var out []int
	for _, pid := range children(os.Getpid()) {
		if agents[pid] || pid == t.agent {
			continue
		}
		if t.claimAll || hasMarker(pid, t.marker) {
			out = append(out, pid)
		}
	}
	return out
}

// activity sums CPU time and bytes read over the attempt's processes, and
// counts those in a session of their own: the agent's tools.
func (t *tree) activity() watchdog.Activity {
	var a watchdog.Activity
	for _, p := range t.snapshot() {
		a.CPU += time.Duration(p.cpu) * time.Second / ticksPerSecond
		a.ReadBytes += readChar(p.pid)
		if p.sid != t.agent {
			a.Tools++
		}
	}
	return a
}

// ProbeAvailable reports whether /proc can tell the activity of the
// agent's processes here; without it the idle rule has no activity
// evidence to weigh.
func ProbeAvailable() bool { return procAvailable() }

// procAvailable reports whether /proc can tell the activity of a process.
func procAvailable() bool {
	_, ok := readStat(os.Getpid())
	return ok && readChar(os.Getpid()) > 0
}
