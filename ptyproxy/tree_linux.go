package ptyproxy

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/watchdog"

	"golang.org/x/sys/unix"
)

// procInfo is what /proc/PID/stat says of one process.
type procInfo struct {
	pid, ppid, pgid int
	sid             int
	comm            string // the command name, as /proc/PID/comm has it
	state           byte
	start           uint64 // start time in clock ticks since boot: with pid, an identity
	cpu             uint64 // user+system ticks, its reaped children's included
	orphaned        bool   // found under an orphan of the attempt, not under the agent
}

// ticksPerSecond is USER_HZ, the unit of /proc's CPU times on Linux.
const ticksPerSecond = 100

func readStat(pid int) (procInfo, bool) {
	var buf [512]byte
	b, err := readProc("/proc/"+strconv.Itoa(pid)+"/stat", buf[:0])
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
		comm:  string(b[bytes.IndexByte(b, '(')+1 : i]),
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
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, _ := os.ReadDir(dir)
	var out []int
	var buf [256]byte
	for _, t := range tasks {
		b, err := readProc(dir+t.Name()+"/children", buf[:0])
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

// ownChildren lists the wrapper's own children.
func ownChildren() []int { return children(os.Getpid()) }

// readChar returns the bytes a process has read (rchar), 0 if unknown.
func readChar(pid int) int64 {
	var buf [256]byte
	b, err := readProc("/proc/"+strconv.Itoa(pid)+"/io", buf[:0])
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

// readProc appends a /proc file, whole, to b: open, reads, close. The
// wrapper reads a dozen of them at every tick, and os.ReadFile takes twice
// the system calls for each (a stat for the size, the poller's
// bookkeeping): an idle wrapper's CPU was mostly that.
func readProc(path string, b []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
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
	agent      int
	agentStart uint64    // the agent's start time, in ticks since boot
	started    time.Time // the attempt's start, when the agent was started
	marker     string    // "NAME=VALUE" in every process the attempt started
	// runtimeName is the command name of the agent's runtime process (its
	// profile's), "" for none; runtime is that process once found.
	runtimeName string
	runtime     procKey
	conns       connTable // the agent's TCP connections, as the kernel tells them
	// known are the processes seen under the agent, by pid and start: an
	// orphan among them is the attempt's, whatever its environment says.
	// Guarded by liveMu: other attempts read it.
	known  map[procKey]bool
	looked time.Time // the last snapshot observe took
}

type procKey struct {
	pid   int
	start uint64
}

// live are the attempts running in this process, for telling whose an
// orphan is.
var (
	liveMu sync.Mutex
	live   = map[*tree]bool{}
)

// newTree starts tracking an attempt whose agent is pid, whose runtime
// process, if it has one, bears the command name runtime.
func newTree(pid int, marker, runtime string) *tree {
	t := &tree{agent: pid, started: time.Now(), marker: marker, runtimeName: runtime, known: map[procKey]bool{}}
	if info, ok := readStat(pid); ok {
		t.agentStart = info.start
	}
	liveMu.Lock()
	live[t] = true
	liveMu.Unlock()
	return t
}

// done stops tracking the attempt: its orphans, if any are left, go to
// the attempts still running.
func (t *tree) done() {
	liveMu.Lock()
	delete(live, t)
	liveMu.Unlock()
}

// observe takes a snapshot while output flows, at most every lookEvery,
// so that a process the agent starts and leaves behind is known as the
// attempt's before it is orphaned.
func (t *tree) observe(now time.Time) {
	if now.Sub(t.looked) < lookEvery {
		return
	}
	t.looked = now
	t.snapshot()
}

// lookEvery bounds the snapshots that output flowing asks for.
const lookEvery = time.Second

// exited reports whether pid has exited: a zombie not reaped yet, or gone.
func exited(pid int) bool {
	info, ok := readStat(pid)
	return !ok || info.state == 'Z' || info.state == 'X'
}

// snapshot returns the attempt's live processes, the agent first if alive.
// Zombies are skipped: they hold nothing and cannot be signalled. Those
// found under an orphan, not under the agent, are marked so.
func (t *tree) snapshot() []procInfo { return t.walk(true) }

// walk returns the live processes under the agent, the agent first if
// alive, and with orphans those under the attempt's orphans too.
func (t *tree) walk(orphans bool) []procInfo {
	var out []procInfo
	seen := map[int]bool{}
	var walk func(pid int, orphaned bool)
	walk = func(pid int, orphaned bool) {
		if seen[pid] {
			return
		}
		seen[pid] = true
		if info, ok := readStat(pid); ok && info.state != 'Z' && info.state != 'X' {
			info.orphaned = orphaned
			out = append(out, info)
		}
		for _, c := range children(pid) {
			walk(c, orphaned)
		}
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(t.agent)); err == nil {
		walk(t.agent, false)
	}
	// Other attempts read what this one knows (claims).
	liveMu.Lock()
	for _, p := range out {
		t.known[procKey{p.pid, p.start}] = true
	}
	liveMu.Unlock()
	if orphans {
		for _, pid := range t.orphans() {
			walk(pid, true)
		}
	}
	return out
}

// orphans lists the wrapper's own children that belong to this attempt,
// by ancestry: those seen under its agent, or carrying its marker, or,
// when no other attempt can be theirs, born while it ran. An orphan that
// left no trace (an env -i setsid daemon, forked and orphaned between two
// looks) while other attempts ran beside this one is claimed by the last
// of them to end: never by an attempt that started after it.
func (t *tree) orphans() []int {
	var out []int
	// None of them is reaped, so none's pid is taken by another process,
	// while they are looked at.
	reaper.Orphans(ownChildren, func(pids []int) {
		liveMu.Lock()
		defer liveMu.Unlock()
		for _, pid := range pids {
			if pid == t.agent {
				continue
			}
			if info, ok := readStat(pid); ok && t.claims(info) {
				out = append(out, pid)
			}
		}
	})
	return out
}

// claims reports whether an orphan is this attempt's; liveMu held.
func (t *tree) claims(p procInfo) bool {
	key := procKey{p.pid, p.start}
	if t.known[key] || hasMarker(p.pid, t.marker) {
		return true
	}
	if p.start < t.agentStart {
		return false
	}
	for other := range live {
		if other == t {
			continue
		}
		if other.known[key] || hasMarker(p.pid, other.marker) || other.agentStart <= p.start {
			return false // Another attempt's, or possibly.
		}
	}
	return true
}

// activity reports the attempt's processes as the watchdog weighs them:
// the agent's own CPU time (its process and its runtime process; what
// they read is not work, see watchdog.Activity), every other process with
// its identity, usage and whether it is still under the agent, and the
// TCP connections of the agent process and its runtime process. Which of them count is the watchdog's to say.
// It is taken at now, and counts as a look (observe).
//
// The attempt's orphans are not looked for: what left the agent's
// ancestry never counts, and finding them walks the wrapper's own
// children, which costs as much as the agent's tree (a third of a
// sample).
func (t *tree) activity(now time.Time) watchdog.Activity {
	var a watchdog.Activity
	t.looked = now
	procs := t.walk(false)
	runtime := t.findRuntime(procs)
	own := []int{}
	for _, p := range procs {
		cpu := time.Duration(p.cpu) * time.Second / ticksPerSecond
		if p.pid == t.agent || p.pid == runtime {
			a.CPU += cpu
			own = append(own, p.pid)
			continue
		}
		a.Procs = append(a.Procs, watchdog.Proc{
			Pid: p.pid, Name: p.comm, Started: t.startedAt(p.start), CPU: cpu, ReadBytes: readChar(p.pid),
			Under: !p.orphaned, OwnSession: p.sid != t.agent,
		})
	}
	a.Conns = t.conns.conns(sockets(own))
	return a
}

// startedAt is when a process that started at ticks (since boot) started,
// on the attempt's clock: the agent's start is the attempt's. Zero when
// the agent's own start is unknown.
func (t *tree) startedAt(ticks uint64) time.Time {
	if t.agentStart == 0 {
		return time.Time{}
	}
	return t.started.Add(time.Duration(int64(ticks)-int64(t.agentStart)) * time.Second / ticksPerSecond)
}

// runtimeWithin bounds how long after the agent its runtime process
// starts: at once (Codex's node starts its binary in about 0.1 s), not
// as a tool or helper started later would.
const runtimeWithin = 5 * ticksPerSecond

// findRuntime returns the pid of the agent's runtime process in procs, 0
// if it has none: the first child of the agent that bears the profile's
// name, started with it. Once found it is that process for the attempt,
// by its identity, so a tool of the same name never takes its place.
func (t *tree) findRuntime(procs []procInfo) int {
	if t.runtimeName == "" {
		return 0
	}
	if t.runtime.pid == 0 {
		var first *procInfo
		for i, p := range procs {
			if p.ppid == t.agent && !p.orphaned && (first == nil || p.start < first.start) {
				first = &procs[i]
			}
		}
		if first == nil || first.comm != t.runtimeName || first.start > t.agentStart+runtimeWithin {
			return 0
		}
		t.runtime = procKey{first.pid, first.start}
	}
	for _, p := range procs {
		if (procKey{p.pid, p.start}) == t.runtime {
			return p.pid
		}
	}
	return 0
}

// ProbeCheck reports whether /proc can tell the activity of the agent's
// processes here (without it the idle rule has no activity evidence to
// weigh), what that check is, and the fix when it fails, for doctor.
func ProbeCheck() (ok bool, what, fix string) {
	return procAvailable(), "/proc tells the agent's CPU time and its tools' bytes read (activity evidence)",
		"mount /proc; without it a silent agent is judged by the idle timeout alone"
}

// procAvailable reports whether /proc can tell the activity of a process.
func procAvailable() bool {
	_, ok := readStat(os.Getpid())
	return ok && readChar(os.Getpid()) > 0
}

// commandLine is a process's command line for people, shortened: the
// program's name, and its last argument when there are more
// ("node … worker-server").
func commandLine(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return "pid " + strconv.Itoa(pid)
	}
	argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	s := filepath.Base(argv[0])
	switch {
	case len(argv) == 2:
		s += " " + argv[1]
	case len(argv) > 2:
		s += " … " + argv[len(argv)-1]
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}
