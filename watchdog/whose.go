package watchdog

import "time"

// A Proc is one process of the attempt other than the agent's own (the
// agent process and the runtime process its profile names, whose work is
// Activity's CPU and ReadBytes), as a sample found it. The orchestrator
// reports every such process with what it knows of it; which of them
// count as the agent's work is decided here (see counts).
type Proc struct {
	Pid     int
	Name    string    // its command name, for people
	Started time.Time // with Pid, the process's identity from sample to sample
	// CPU and ReadBytes are cumulative: its own, and its reaped
	// children's, so that a tool's short-lived children show through it.
	CPU       time.Duration
	ReadBytes int64
	// Under is set while the process descends from the agent; an orphan,
	// or anything that left the agent's ancestry, is reported with Under
	// false, and never counts.
	Under bool
	// OwnSession is set for a process in a session of its own, as agents
	// start their tools: one that started for an open call is that call
	// at work even when it uses nothing (a sleep).
	OwnSession bool
}

// procKey is a process's identity: a pid is reused, a pid and a start
// time are not.
type procKey struct {
	pid   int
	start int64
}

func (p Proc) key() procKey { return procKey{p.Pid, p.Started.UnixNano()} }

// toolSlack allows for a tool process that starts a moment before its
// call's start event is read: the agent may spawn first and print after,
// and process start times are only known to 10 ms.
const toolSlack = time.Second

// counts reports whether p's work is the agent's. Only a process still
// under the agent can be. In text mode, where no call is ever seen to
// start, any such process is, as far as can be told. In stream-json mode
// only one that started (give or take toolSlack) after the oldest open
// tool call did: that call's tool, or what its tool started. A helper
// the agent started before the call (an MCP server, a dev server an
// earlier call left running), or anything while no call is open, is not.
func (w *Watchdog) counts(p Proc) bool {
	if !p.Under {
		return false
	}
	if w.th.TextMode {
		return true
	}
	oldest, open := w.calls.oldestStart()
	return open && !p.Started.Before(oldest.Add(-toolSlack))
}

// work is what a window of samples shows the agent did: its own CPU time,
// the CPU time and bytes read of the processes that count, and which of
// them did most.
type work struct {
	cpu  time.Duration
	read int64
	// top is the counted process that used the most CPU (or read the
	// most, if none used CPU), none when none did better than the agent
	// itself; tool is a counted process in a session of its own, if any.
	top, tool Proc
}

// workBetween sums what counts between two samples of the same silence,
// each process by its identity: one absent from the earlier sample
// started since, and all its usage falls in the window.
func (w *Watchdog) workBetween(from, to Activity) work {
	wk := work{cpu: max(to.CPU-from.CPU, 0)}
	before := make(map[procKey]Proc, len(from.Procs))
	for _, p := range from.Procs {
		before[p.key()] = p
	}
	bestCPU, bestRead := wk.cpu, int64(0)
	for _, p := range to.Procs {
		if !w.counts(p) {
			continue
		}
		b := before[p.key()]
		cpu, read := max(p.CPU-b.CPU, 0), max(p.ReadBytes-b.ReadBytes, 0)
		wk.cpu += cpu
		wk.read += read
		if cpu > bestCPU || cpu == bestCPU && read > bestRead {
			wk.top, bestCPU, bestRead = p, cpu, read
		}
		if p.OwnSession && (wk.tool.Pid == 0 || p.Pid == wk.top.Pid) {
			wk.tool = p
		}
	}
	return wk
}
