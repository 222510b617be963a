// Package proctable follows an attempt's processes through snapshots of the
// process table, for systems where the wrapper cannot be a child subreaper
// (macOS): it finds the agent's descendants by ancestry, remembers them so
// that one whose parent died (reparented to launchd, pid 1) is still the
// attempt's, claims the orphans that carry the attempt's marker, and says
// whether a pid still names the process that was seen. It also reads what
// ps and kern.procargs2 report. Everything here is a pure function of data,
// so it is tested on any system.
package proctable

import (
	"maps"
	"slices"
)

// Proc is one row of a snapshot of the process table.
type Proc struct {
	PID, PPID, PGID int
	UID             int
	// Start is the start time in microseconds since the epoch: with the
	// pid, an identity that a recycled pid does not share.
	Start  int64
	Zombie bool
	Comm   string // the command name, as the kernel keeps it (16 bytes at most)
}

// ID names one process over time: a pid is reused, a pid and a start time
// are not.
type ID struct {
	PID   int
	Start int64
}

// ID returns the process's identity.
func (p Proc) ID() ID { return ID{p.PID, p.Start} }

// Same reports whether cur, a fresh row for id's pid, is still the process
// id names and alive: only then may it be signalled.
func Same(id ID, cur Proc) bool {
	return cur.PID == id.PID && cur.Start == id.Start && !cur.Zombie
}

// launchd adopts the processes whose parent died.
const launchd = 1

// Tree is an attempt's processes as far as the snapshots it was given show.
//
// A process is the attempt's when it descends from the agent, when it was
// seen as the attempt's in an earlier snapshot and is still the same
// process (its parent may have died since: it then hangs under launchd), or
// when it hangs under launchd, started after the attempt did, and carries
// the attempt's marker (a process whose parent died between two snapshots).
// Descendants of any of those are the attempt's too.
//
// # Not covered
//
// A process that left between two snapshots, lost its parent before it was
// seen and cleared its environment (env -i) is not found: nothing ties it
// to the attempt any more.
type Tree struct {
	root  ID
	since int64
	known map[ID]bool // the attempt's processes seen so far, still alive
	// checked holds the launchd orphans whose marker was looked for, and
	// whether it was there: each is asked once.
	checked map[ID]bool
}

// New follows the attempt whose agent is root; an orphan that started
// before since (microseconds since the epoch) is never claimed by marker.
// A zero root stands for an agent that was gone before it could be seen.
func New(root ID, since int64) *Tree {
	return &Tree{root: root, since: since, known: map[ID]bool{}, checked: map[ID]bool{}}
}

// Snapshot takes a new snapshot of the process table and returns the
// attempt's live processes, the agent first if alive, zombies left out.
// ours says whether an orphan under launchd carries the attempt's marker;
// it is asked only of orphans that started since the attempt did, once
// per process.
func (t *Tree) Snapshot(table []Proc, ours func(Proc) bool) []Proc {
	byPID := make(map[int]Proc, len(table))
	kids := map[int][]int{}
	for _, p := range table {
		byPID[p.PID] = p
		kids[p.PPID] = append(kids[p.PPID], p.PID)
	}
	alive := func(id ID) bool {
		cur, ok := byPID[id.PID]
		return ok && Same(id, cur)
	}
	// What died, or whose pid now names another process, is forgotten.
	gone := func(id ID, _ bool) bool { return !alive(id) }
	maps.DeleteFunc(t.known, gone)
	maps.DeleteFunc(t.checked, gone)
	for _, p := range table {
		if p.PPID != launchd || p.Zombie || p.Start < t.since || p.PID <= launchd || t.known[p.ID()] {
			continue
		}
		mine, seen := t.checked[p.ID()]
		if !seen {
			mine = ours(p)
			t.checked[p.ID()] = mine
		}
		if mine {
			t.known[p.ID()] = true
		}
	}

	seeds := make([]int, 0, len(t.known)+1)
	if t.root.PID > launchd && alive(t.root) {
		seeds = append(seeds, t.root.PID)
	}
	rest := make([]int, 0, len(t.known))
	for id := range t.known {
		rest = append(rest, id.PID)
	}
	slices.Sort(rest)
	seeds = append(seeds, rest...)

	var out []Proc
	visited := map[int]bool{}
	var walk func(pid int)
	walk = func(pid int) {
		p, ok := byPID[pid]
		if visited[pid] || !ok || p.Zombie || pid <= launchd {
			return
		}
		visited[pid] = true
		t.known[p.ID()] = true
		out = append(out, p)
		for _, c := range kids[pid] {
			walk(c)
		}
	}
	for _, pid := range seeds {
		walk(pid)
	}
	return out
}
