package ptyproxy

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/proctable"
	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/watchdog"
)

// procInfo is one process of the attempt as a snapshot showed it.
type procInfo struct {
	pid, ppid, pgid int
	id              proctable.ID // checked again right before a signal
	start           time.Time
	comm            string
}

// sZomb is a zombie's p_stat (sys/proc.h).
const sZomb = 5

func fromKinfo(k *unix.KinfoProc) proctable.Proc {
	return proctable.Proc{
		PID:    int(k.Proc.P_pid),
		PPID:   int(k.Eproc.Ppid),
		PGID:   int(k.Eproc.Pgid),
		UID:    int(k.Eproc.Ucred.Uid),
		Start:  k.Proc.P_starttime.Sec*1e6 + int64(k.Proc.P_starttime.Usec),
		Zombie: k.Proc.P_stat == sZomb,
		Comm:   unix.ByteSliceToString(k.Proc.P_comm[:]),
	}
}

// readTable reads the whole process table (sysctl kern.proc.all).
func readTable() ([]proctable.Proc, error) {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	out := make([]proctable.Proc, len(ks))
	for i := range ks {
		out[i] = fromKinfo(&ks[i])
	}
	return out, nil
}

// readProc reads one process's row (sysctl kern.proc.pid).
func readProc(pid int) (proctable.Proc, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(k.Proc.P_pid) != pid {
		return proctable.Proc{}, false
	}
	return fromKinfo(k), true
}

// A tree finds an attempt's processes in snapshots of the process table:
// macOS has no child subreaper, so an orphan goes to launchd and only
// memory or its environment ties it to the attempt (see proctable.Tree).
// A snapshot is taken at every kill step, at every check of the
// watchdog's deadlines, and while output flows, at most every
// observeEvery; the processes seen are remembered by pid and start time,
// and those still alive at the end are killed.
type tree struct {
	agent      int
	agentStart time.Time
	marker     string // "NAME=VALUE" in every process the attempt started
	procs      *proctable.Tree
	last       time.Time // the last snapshot taken for observe
	// runtimeName is the command name of the agent's runtime process (its
	// profile's), "" for none; runtime is that process once found.
	runtimeName string
	runtime     proctable.ID
}

// observeEvery bounds the snapshots that output flowing asks for: one
// reads the whole table (a few hundred rows on a Mac).
const observeEvery = 500 * time.Millisecond

// newTree follows the attempt whose agent is pid, whose runtime process,
// if it has one, bears the command name runtime. Orphans never come to
// the wrapper here: they are claimed by ancestry or marker only.
func newTree(pid int, marker, runtime string) *tree {
	// An agent gone already leaves its start unknown: its descendants
	// started within the last moment.
	root, since := proctable.ID{}, time.Now().Add(-time.Second).UnixMicro()
	if p, ok := readProc(pid); ok {
		root, since = p.ID(), p.Start
	}
	return &tree{agent: pid, agentStart: time.UnixMicro(since), marker: marker, runtimeName: runtime, procs: proctable.New(root, since)}
}

// observe takes a snapshot, unless one was taken less than observeEvery
// before now, so that a process whose parent dies later is remembered.
func (t *tree) observe(now time.Time) {
	if now.Sub(t.last) < observeEvery {
		return
	}
	t.last = now
	t.snapshot()
}

// snapshot returns the attempt's live processes, the agent first if
// alive. Zombies are skipped: they hold nothing and cannot be signalled.
func (t *tree) snapshot() []procInfo {
	table, err := readTable()
	if err != nil {
		return nil
	}
	live := t.procs.Snapshot(table, t.ours)
	out := make([]procInfo, len(live))
	for i, p := range live {
		out[i] = procInfo{pid: p.PID, ppid: p.PPID, pgid: p.PGID, id: p.ID(), start: time.UnixMicro(p.Start), comm: p.Comm}
	}
	return out
}

// done ends the attempt's bookkeeping. Nothing is shared between attempts
// here: each remembers its own processes (see proctable.Tree).
func (t *tree) done() {}

// commandLine is a process's command line for people, shortened, as ps
// prints it.
func commandLine(pid int) string {
	ctx, cancel := context.WithTimeout(context.Background(), psTimeout)
	defer cancel()
	out, err := reaper.CommandContext(ctx, psPath, "-o", "command=", "-p", strconv.Itoa(pid)).Output()
	s := strings.TrimSpace(string(out))
	if err != nil || s == "" {
		return "pid " + strconv.Itoa(pid)
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// ours reports whether an orphan carries the attempt's marker. Only the
// wrapper's own user's processes show their environment.
func (t *tree) ours(p proctable.Proc) bool {
	if p.UID != os.Geteuid() {
		return false
	}
	b, err := unix.SysctlRaw("kern.procargs2", p.PID)
	return err == nil && proctable.EnvHas(b, t.marker)
}

// psPath is macOS's ps, whatever PATH holds.
const psPath = "/bin/ps"

// psTimeout bounds the one ps call of an activity sample.
const psTimeout = time.Second

// activity reports the attempt's processes as the watchdog weighs them:
// the agent's own CPU time (its process and its runtime process), as one
// ps call reports it, and every other process with its identity and
// whether it still descends from the agent. Which of them count is the
// watchdog's to say. It is taken at now, and counts as a look (observe).
//
// # macOS
//
// Without cgo there is no proc_pid_rusage (x/sys/unix does not wrap
// libproc), and kinfo_proc's tick counts are not kept up: CPU time comes
// from one ps call per sample, bounded by psTimeout. Samples are taken
// only while a silence is being judged: about one per activity window
// (2 s). (procps's ps, measured on Linux as a stand-in, took 26–30 ms of
// CPU a call; macOS's was not measured.) ps gives each process's own
// time, not its dead children's, so the CPU a process used after its last
// sample is lost if it exits before the next. Bytes read are not to be
// had at all: a Proc's ReadBytes stays 0, and the read floor counts on
// Linux only.
// Nor are the agent's connections (Conns stays nil): proc_pidfdinfo's
// socket info would give a TCP state and the unread bytes, not when data
// last came, and needs libproc; the idle timeout's default covers a
// thinking pause instead (watchdog/defaults_darwin.go).
func (t *tree) activity(now time.Time) watchdog.Activity {
	var a watchdog.Activity
	t.last = now
	procs := t.snapshot()
	pids := make([]string, len(procs))
	for i, p := range procs {
		pids[i] = strconv.Itoa(p.pid)
	}
	var cpu map[int]time.Duration
	if len(procs) > 0 {
		cpu = psCPU(strings.Join(pids, ","))
	}
	runtime := t.findRuntime(procs)
	under := t.underAgent(procs)
	for _, p := range procs {
		if p.pid == t.agent || p.pid == runtime {
			a.CPU += cpu[p.pid]
			continue
		}
		sid, err := unix.Getsid(p.pid)
		a.Procs = append(a.Procs, watchdog.Proc{Pid: p.pid, Name: p.comm, Started: p.start, CPU: cpu[p.pid],
			Under: under[p.pid], OwnSession: err == nil && sid != t.agent})
	}
	return a
}

// underAgent says which of procs descend from the agent: an orphan
// adopted by launchd, and what it started, do not.
func (t *tree) underAgent(procs []procInfo) map[int]bool {
	parent := make(map[int]int, len(procs))
	for _, p := range procs {
		parent[p.pid] = p.ppid
	}
	under := make(map[int]bool, len(procs))
	for _, p := range procs {
		for pid, hops := p.ppid, 0; hops < len(procs); pid, hops = parent[pid], hops+1 {
			if pid == t.agent {
				under[p.pid] = true
				break
			}
			if _, ok := parent[pid]; !ok {
				break
			}
		}
	}
	return under
}

// runtimeWithin bounds how long after the agent its runtime process
// starts: at once, not as a tool or helper started later would.
const runtimeWithin = 5 * time.Second

// findRuntime returns the pid of the agent's runtime process in procs, 0
// if it has none: the first child of the agent that bears the profile's
// name, started with it, and that same process from then on.
func (t *tree) findRuntime(procs []procInfo) int {
	if t.runtimeName == "" {
		return 0
	}
	if t.runtime.PID == 0 {
		var first *procInfo
		for i, p := range procs {
			if p.ppid == t.agent && (first == nil || p.start.Before(first.start)) {
				first = &procs[i]
			}
		}
		if first == nil || first.comm != t.runtimeName || first.start.After(t.agentStart.Add(runtimeWithin)) {
			return 0
		}
		t.runtime = first.id
	}
	for _, p := range procs {
		if p.id == t.runtime {
			return p.pid
		}
	}
	return 0
}

// psCPU runs ps once for a comma-separated list of pids.
func psCPU(pids string) map[int]time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), psTimeout)
	defer cancel()
	// ps exits 1 when a pid has gone meanwhile; what it printed stands.
	out, _ := reaper.CommandContext(ctx, psPath, "-o", "pid=", "-o", "time=", "-p", pids).Output()
	return proctable.ParsePS(out)
}

// exited reports whether pid has exited: a zombie not reaped yet, or gone.
func exited(pid int) bool {
	p, ok := readProc(pid)
	return !ok || p.Zombie
}

// ProbeCheck reports whether the activity of the agent's processes can be
// told here: on macOS, the process table and the CPU time that /bin/ps
// reports (no bytes read); without it the idle rule has no activity
// evidence to weigh. It also says what that check is, and the fix when it
// fails, for doctor.
func ProbeCheck() (ok bool, what, fix string) {
	return procAvailable(), "the process table and /bin/ps tell the agent's CPU time (activity evidence; macOS has no bytes-read count)",
		"/bin/ps must run for this user; without it a silent agent is judged by the idle timeout alone"
}

// procAvailable reports whether the process table and ps can be read; it
// asks once.
var procAvailable = sync.OnceValue(func() bool {
	if _, err := readTable(); err != nil {
		return false
	}
	pid := os.Getpid()
	_, ok := psCPU(strconv.Itoa(pid))[pid]
	return ok
})
