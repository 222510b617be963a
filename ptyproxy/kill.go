package ptyproxy

import (
	"errors"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/reaper"
)

// errRecycled means a pid now names another process than the one seen.
var errRecycled = errors.New("the pid names another process now")

// A killer signals one attempt: the agent's process group at once, and
// each process of the attempt that left the group one by one.
type killer struct {
	tree *tree
	pgid int
}

// signal sends sig to the group and to the attempt's processes outside it
// and returns the targets: -pgid for the group, then pids.
func (k *killer) signal(sig syscall.Signal) []int {
	return k.signalProcs(k.tree.snapshot(), sig)
}

// signalProcs is signal to the processes of a snapshot just taken.
func (k *killer) signalProcs(procs []procInfo, sig syscall.Signal) []int {
	var sent []int
	// While the agent is not reaped its zombie keeps the group id taken,
	// so the id cannot name another group; after that, only a live member
	// seen just now makes the group signal safe.
	if k.groupIn(procs) || k.leaderUnreaped() {
		if err := unix.Kill(-k.pgid, sig); err == nil {
			sent = append(sent, -k.pgid)
		}
	}
	for _, p := range procs {
		if p.pgid == k.pgid {
			continue
		}
		if err := signalExact(p, sig); err == nil {
			sent = append(sent, p.pid)
		}
	}
	return sent
}

func (k *killer) leaderUnreaped() bool { return reaper.Owns(k.pgid) }

// groupIn reports whether a process of the agent's group is among procs.
func (k *killer) groupIn(procs []procInfo) bool {
	return slices.ContainsFunc(procs, func(p procInfo) bool { return p.pgid == k.pgid })
}

// killAll sends SIGKILL until nothing of the attempt is left, reaping the
// orphans it kills, and returns every target it signalled. A process can
// fork between a walk and the kill, so it walks again until a walk comes
// back empty; its orphan then reparents here and the next walk finds it.
func (k *killer) killAll() []int {
	var sent []int
	for round := 0; round < 50; round++ {
		procs := k.tree.snapshot()
		if len(procs) == 0 && !k.leaderUnreaped() {
			break
		}
		sent = append(sent, k.signalProcs(procs, syscall.SIGKILL)...)
		time.Sleep(time.Duration(round+1) * time.Millisecond)
		reapOrphans()
	}
	reapOrphans()
	return sent
}

// Signals prepares the process's signals for running agents and returns
// the channel of those an attempt passes on (Options.Signals): every signal
// that would otherwise end the wrapper (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGABRT, SIGUSR1, …), except one ignored when the process started (a
// background job's SIGINT stays ignored, as it would for the agent alone).
// Uncaught, SIGQUIT dumped the goroutines and SIGUSR1 ended the wrapper
// with the agent's tools left running and no exit record.
// SIGPIPE is caught, not ignored: ignoring it would pass SIG_IGN on to the
// agent and every tool it runs; caught, a write to a closed stdout fails
// with EPIPE and the session ends cleanly.
func Signals() <-chan os.Signal {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	sigs := make(chan os.Signal, 2)
	for _, sig := range terminating() {
		if !signal.Ignored(sig) {
			signal.Notify(sigs, sig)
		}
	}
	return sigs
}
