// Package reaper starts every program the process runs, as a shell would
// (a child, or the program that replaces the process: Exec), and collects
// the exit status of the children nobody waits for: the orphans a child
// subreaper adopts.
// A child started with KillGroup ends with its whole tree: what it leaves
// behind is stopped when it exits.
//
// A wait that takes the status of a child some exec.Cmd is waiting for
// leaves that Cmd's Wait without it (ECHILD), and the child's exit code is
// lost. So a child is started only through a Cmd of this package, which
// registers it in the one set of children that are waited for, under the
// lock that Reap and Orphans hold while they look at the process's
// children. A test keeps every other package from starting one.
package reaper

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The process's one set of children that a Cmd waits for, and its lock:
// held across a fork and the new pid's registration, and by whoever looks
// at the process's children, so that none of them is reaped meanwhile.
var (
	mu     sync.Mutex
	waited = map[int]bool{}
)

// A Cmd is an exec.Cmd whose Start registers its child and whose Wait
// lets it go once its status is taken. Its Run, Output and CombinedOutput
// go through them too: they stand in for exec.Cmd's own, which would start
// the child unregistered.
type Cmd struct {
	execCmd
	// Keep bounds what Output and CombinedOutput keep of the child's
	// output (0: DefaultKeep); the rest is counted, not kept.
	Keep int
	// Leftovers is how many processes the child left running when it
	// exited (its group, and on Linux those that left the group) that
	// Wait stopped.
	Leftovers int
	ctx       context.Context
	killGroup bool
	killed    bool   // KillGroup's cancel signalled the group
	marker    string // "NAME=VALUE" in the environment of the child's tree
	pid       int
}

// markers numbers the markers of the children started with KillGroup.
var markers atomic.Int64

// leftoverWait bounds the wait, once a KillGroup child exited and its
// leftovers are stopped, for its output to end: a process that left its
// group and cleared its environment can still hold it.
const leftoverWait = time.Second

// execCmd gives the embedded exec.Cmd an unexported name: its fields are
// set as usual, but its own Start cannot be reached from outside.
type execCmd = exec.Cmd

// Command is exec.Command for a child started through the reaper.
func Command(name string, arg ...string) *Cmd {
	return &Cmd{execCmd: *exec.Command(name, arg...)}
}

// CommandContext is exec.CommandContext for a child started through the
// reaper: the end of ctx kills it (see KillGroup for its whole group).
func CommandContext(ctx context.Context, name string, arg ...string) *Cmd {
	c := &Cmd{execCmd: *exec.CommandContext(ctx, name, arg...), ctx: ctx}
	// exec's own Cancel kills the Cmd it made, not this copy of it.
	c.Cancel = func() error { return c.Process.Kill() }
	return c
}

// KillGroup runs the child in a process group of its own (unless its
// SysProcAttr gives it a session, which is one too) and makes its tree end
// with it: the end of the Cmd's context kills the whole group (a shell and
// what it started), and when the child exits Wait stops what it left
// running, in its group or, on Linux, out of it (found by a marker in the
// environment it passed on; see Leftovers). Wait says when it was killed
// and why; Run waits at most a second more for output that a process it
// could not find holds open. The Cmd must come from CommandContext.
func (c *Cmd) KillGroup() {
	c.killGroup = true
	c.Cancel = func() error {
		err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.killed = err == nil // Read by Wait, after exec's watcher hands on its result.
		return err
	}
	c.WaitDelay = time.Second
}

// Start starts the child and registers it, both under the lock: the
// reaper never sees it unregistered. A script the kernel will not run
// runs under Shell, as a shell would start it (see Exec).
func (c *Cmd) Start() error {
	if c.killGroup {
		if c.SysProcAttr == nil {
			c.SysProcAttr = &syscall.SysProcAttr{}
		}
		c.SysProcAttr.Setpgid = !c.SysProcAttr.Setsid // Both fail with EPERM.
		c.marker = fmt.Sprintf("CURSOR_WRAP_CHILD=%d-%d", os.Getpid(), markers.Add(1))
		if c.Env == nil {
			c.Env = os.Environ()
		}
		c.Env = append(slices.Clip(c.Env), c.marker)
	}
	mu.Lock()
	defer mu.Unlock()
	err := c.execCmd.Start()
	if underShell(c.Path, err) {
		err = c.startUnderShell()
	}
	if err != nil {
		return err
	}
	c.pid = c.Process.Pid
	waited[c.pid] = true
	return nil
}

// Wait waits for the child, as exec.Cmd's does, then lets it go; for a
// KillGroup child, it stops what the child left running.
func (c *Cmd) Wait() error {
	err := c.execCmd.Wait()
	mu.Lock()
	delete(waited, c.pid)
	mu.Unlock()
	if c.killGroup {
		c.Leftovers = stopLeftovers(c.pid, c.marker)
	}
	if c.killed {
		err = fmt.Errorf("killed: %w", context.Cause(c.ctx))
	}
	return err
}

// Run starts the child and waits for it. A KillGroup child's output goes
// through pipes of Run's own rather than exec.Cmd's: exec's Wait would
// wait for a leftover holding them (and then fail with exec.ErrWaitDelay
// though the child succeeded); Run stops the leftovers first.
func (c *Cmd) Run() error {
	if !c.killGroup {
		if err := c.Start(); err != nil {
			return err
		}
		return c.Wait()
	}
	var copies []chan struct{}
	var ends []*os.File
	pipe := func(w io.Writer) (io.Writer, error) {
		if _, ok := w.(*os.File); ok || w == nil {
			return w, nil
		}
		r, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		done := make(chan struct{})
		go func() {
			_, _ = io.Copy(w, r) // Ends when the pipe is closed below.
			close(done)
		}()
		copies, ends = append(copies, done), append(ends, r, pw)
		return pw, nil
	}
	var err error
	stdout, stderr := c.Stdout, c.Stderr
	if c.Stdout, err = pipe(stdout); err == nil {
		if stderr == stdout {
			c.Stderr = c.Stdout // One pipe keeps their order, as exec does.
		} else {
			c.Stderr, err = pipe(stderr)
		}
	}
	if err == nil {
		err = c.Start()
	}
	for i := 1; i < len(ends); i += 2 {
		ends[i].Close() // The child has its copies of the write ends.
	}
	if err == nil {
		err = c.Wait()
	}
	timeout := time.After(leftoverWait)
	for i, done := range copies {
		select {
		case <-done:
		case <-timeout:
		}
		ends[2*i].Close()
		<-done
	}
	c.Stdout, c.Stderr = stdout, stderr
	return err
}

// Output runs the child and returns its stdout, at most Keep bytes of it
// and a line that says how much more there was. Unlike exec.Cmd's, it does
// not keep stderr for the error.
func (c *Cmd) Output() ([]byte, error) {
	out := NewKept(cmp.Or(c.Keep, DefaultKeep))
	c.Stdout = out
	err := c.Run()
	return out.Bytes(), err
}

// CombinedOutput runs the child and returns its stdout and stderr, in the
// order it wrote them, bounded as Output's.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	out := NewKept(cmp.Or(c.Keep, DefaultKeep))
	c.Stdout, c.Stderr = out, out
	err := c.Run()
	return out.Bytes(), err
}

// DefaultKeep bounds what is kept of a child's output: what the wrapper
// keeps is bounded however much a child prints (an on_hang command of
// `yes` took it to 7.5 GB).
const DefaultKeep = 1 << 20

// A Kept is a writer that keeps the first bytes written to it, up to its
// bound, and counts the rest. A child's output is read to its end all the
// same, so the child never blocks on it.
type Kept struct {
	max     int
	b       []byte
	dropped int64
}

// NewKept returns a Kept that keeps at most max bytes.
func NewKept(max int) *Kept { return &Kept{max: max} }

// Write keeps what fits and counts the rest; it never fails.
func (k *Kept) Write(p []byte) (int, error) {
	n := min(len(p), k.max-len(k.b))
	k.b = append(k.b, p[:n]...)
	k.dropped += int64(len(p) - n)
	return len(p), nil
}

// Bytes returns what was kept, and a last line that says how much was not.
func (k *Kept) Bytes() []byte {
	if k.dropped == 0 {
		return k.b
	}
	return fmt.Appendf(bytes.Clone(k.b), "\n… [%d more bytes not kept]\n", k.dropped)
}

// Owns reports whether a Cmd is waiting for pid: a child that exited but
// is not reaped yet still holds its pid and its process group id.
func Owns(pid int) bool {
	mu.Lock()
	defer mu.Unlock()
	return waited[pid]
}

// Orphans calls fn with the children that children lists (the process's
// own, as the system tells them) and no Cmd waits for, the lock held:
// none of them is reaped, so each pid names the same process, until fn
// returns. fn must not start a child.
func Orphans(children func() []int, fn func(pids []int)) {
	mu.Lock()
	defer mu.Unlock()
	var orphans []int
	for _, pid := range children() {
		if !waited[pid] {
			orphans = append(orphans, pid)
		}
	}
	fn(orphans)
}

// Reap collects the exit status of every orphan that has exited, among
// the children that children lists, by pid: a wait for any child could
// take the status of one a Cmd waits for.
func Reap(children func() []int) {
	Orphans(children, func(pids []int) {
		for _, pid := range pids {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil) // Not dead yet is fine.
		}
	})
}
