package ptyproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// startAgent starts the fake agent with steps as an attempt does (under a
// PTY of its own, its stdin a pipe the caller keeps open) and stops it at
// the test's end.
func startAgent(t testing.TB, steps ...string) *proc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stdin, feed := io.Pipe()
	o := Options{Path: self, Args: append([]string{fakeagent.Subcommand}, steps...)}
	o.Stdin = stdin
	p, err := start(&o, agentEnv())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = unix.Kill(-p.pid, unix.SIGKILL)
		<-p.exited
		feed.Close()
		p.closeAll()
	})
	return p
}

// lookUntil looks at the agent's input until it says want, within a
// bound, and returns the last error the look gave.
func lookUntil(t testing.TB, in *inputs, pid int, want watchdog.Input) error {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := in.look([]int{pid})
		if got == want {
			return err
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent waits on %v (%v), want %v", got, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// denying reads /proc as a kernel that refuses the files whose paths end
// in one of suffixes does: a Yama ptrace_scope of 2 refuses task/*/syscall
// (attach access), a process that is not dumpable its fd directory too.
type denying struct {
	kernelFiles
	suffixes []string
}

func (d denying) refuses(path string) error {
	for _, s := range d.suffixes {
		if strings.HasSuffix(path, s) || strings.Contains(path, s+"/") {
			return &fs.PathError{Op: "open", Path: path, Err: unix.EACCES}
		}
	}
	return nil
}

func (d denying) names(dir string) ([]string, error) {
	if err := d.refuses(dir); err != nil {
		return nil, err
	}
	return d.kernelFiles.names(dir)
}

func (d denying) link(path string) (string, error) {
	if err := d.refuses(path); err != nil {
		return "", err
	}
	return d.kernelFiles.link(path)
}

func (d denying) read(path string, buf []byte) ([]byte, error) {
	if err := d.refuses(path); err != nil {
		return nil, err
	}
	return d.kernelFiles.read(path, buf)
}

// TestLookInput: a real agent waiting to read its terminal in its event
// loop's epoll set is seen waiting on its terminal, one blocked in a read
// of its stdin pipe on its stdin, one that sleeps on neither. Where the
// kernel refuses a file that could show the wait, the answer is unknown,
// and says which file; a wait another file shows is still seen.
func TestLookInput(t *testing.T) {
	t.Parallel()
	yama2 := denying{suffixes: []string{"/syscall"}}
	undumpable := denying{suffixes: []string{"/fd", "/fdinfo", "/syscall"}}
	for _, tc := range []struct {
		kernel   string
		fs       procFiles
		step     string
		want     watchdog.Input
		refusing string // the file the error names, for unknown
	}{
		{"readable", kernelFiles{}, "wait-tty", watchdog.InputTerminal, ""},
		{"readable", kernelFiles{}, "wait-stdin", watchdog.InputStdin, ""},
		{"readable", kernelFiles{}, "hang", watchdog.InputNone, ""},
		{"ptrace_scope 2", yama2, "wait-tty", watchdog.InputTerminal, ""},
		{"ptrace_scope 2", yama2, "wait-stdin", watchdog.InputUnknown, "/syscall"},
		{"ptrace_scope 2", yama2, "hang", watchdog.InputUnknown, "/syscall"},
		{"not dumpable", undumpable, "wait-tty", watchdog.InputUnknown, "/fd"},
	} {
		t.Run(tc.kernel+"/"+tc.step, func(t *testing.T) {
			t.Parallel()
			p := startAgent(t, tc.step)
			in := newInputs(p)
			in.fs = tc.fs
			err := lookUntil(t, in, p.pid, tc.want)
			if tc.want == watchdog.InputNone || tc.want == watchdog.InputUnknown {
				// Not a moment of the start: it stays so.
				time.Sleep(200 * time.Millisecond)
				err = lookUntil(t, in, p.pid, tc.want)
			}
			if (err != nil) != (tc.refusing != "") || err != nil && !strings.Contains(err.Error(), tc.refusing) {
				t.Errorf("error %v, want one naming %q", err, tc.refusing)
			}
		})
	}
}

// TestLookInputGone: a process that has gone waits on nothing.
func TestLookInputGone(t *testing.T) {
	t.Parallel()
	p := startAgent(t, "exit", "0")
	<-p.exited
	p.exited <- exitStatus{} // For the cleanup.
	if got, err := newInputs(p).look([]int{p.pid}); got != watchdog.InputNone || err != nil {
		t.Errorf("a reaped agent waits on %v (%v)", got, err)
	}
}

// BenchmarkLookInput measures a look at an agent that waits on its
// terminal in its epoll set, and at one that waits on nothing (every
// thread's syscall file read), in wall time and in the CPU time it costs.
func BenchmarkLookInput(b *testing.B) {
	for _, step := range []string{"wait-tty", "hang"} {
		b.Run(step, func(b *testing.B) {
			p := startAgent(b, step)
			in := newInputs(p)
			want := watchdog.InputNone
			if step == "wait-tty" {
				want = watchdog.InputTerminal
			}
			lookUntil(b, in, p.pid, want)
			before := cpuTime()
			for b.Loop() {
				in.look([]int{p.pid})
			}
			b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
		})
	}
}

func TestParseSyscall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		nr   int
		arg0 uint64
		ok   bool
	}{
		{"0 0x3 0xc000012345 0x1 0x0 0x0 0x0 0x7ffd1234 0x4a1b2c\n", 0, 3, true},
		{"232 0x4 0x7ffe0 0x80 0xffffffff 0x0 0x0 0x7ffe 0x7f04\n", 232, 4, true},
		{"running\n", 0, 0, false},
		{"-1 0x7ffe429c8060 0x7f04f7196bd3\n", 0, 0, false},
		{"", 0, 0, false},
		{"0 3\n", 0, 0, false},
		{"0 0xzz\n", 0, 0, false},
	} {
		nr, arg0, ok := parseSyscall([]byte(tc.in))
		if nr != tc.nr && tc.ok || arg0 != tc.arg0 || ok != tc.ok {
			t.Errorf("%q: %d %#x %v, want %d %#x %v", tc.in, nr, arg0, ok, tc.nr, tc.arg0, tc.ok)
		}
	}
}

// fdinfoSample is an epoll fdinfo file as Linux 6 writes it: the fd
// watched for input (EPOLLIN, 0x1), one for output only, and one from a
// kernel that prints no inode.
const fdinfoSample = "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\n" +
	"tfd:        5 events: 80002005 data:     7f9b0c000b60  pos:0 ino:61 sdev:d\n" +
	"tfd:        7 events:        4 data:     7f9b0c000b80  pos:0 ino:62 sdev:d\n" +
	"tfd:        9 events:       19 data:     7f9b0c000ba0\n"

func TestEpollReads(t *testing.T) {
	t.Parallel()
	got := map[int]uint64{}
	for fd, ino := range epollReads([]byte(fdinfoSample)) {
		got[fd] = ino
	}
	if len(got) != 2 || got[5] != 0x61 || got[9] != 0 {
		t.Errorf("got %v, want fd 5 (inode 0x61) and fd 9 (no inode)", got)
	}
}

// FuzzParseSyscall: any text is read without a panic; a call found has a
// number and an argument.
func FuzzParseSyscall(f *testing.F) {
	f.Add([]byte("0 0x3 0xc000012345 0x1 0x0 0x0 0x0 0x7ffd1234 0x4a1b2c\n"))
	f.Add([]byte("running\n"))
	f.Add([]byte("-1 0x7ffe429c8060 0x7f04f7196bd3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		nr, _, ok := parseSyscall(b)
		if ok && (nr < 0 || len(bytes.Fields(b)) < 2) {
			t.Errorf("%q: call %d", b, nr)
		}
	})
}

// FuzzEpollReads: any text is read without a panic; every fd yielded is
// on a tfd line whose events hold EPOLLIN.
func FuzzEpollReads(f *testing.F) {
	f.Add([]byte(fdinfoSample))
	f.Add([]byte("tfd: -1 events: 1\ntfd: 3 events: zz\ntfd:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for fd := range epollReads(b) {
			if fd < 0 || !strings.Contains(string(b), "tfd:") {
				t.Errorf("%q: fd %d", b, fd)
			}
		}
	})
}

// records collects an attempt's session log.
type records struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *records) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

// warnings returns the messages of the warning records.
func (r *records) warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for line := range bytes.Lines(r.buf.Bytes()) {
		var rec struct{ Msg, Message string }
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "warning" {
			out = append(out, rec.Message)
		}
	}
	return out
}

// TestPersonFallback: where the kernel refuses to say what the agent
// waits on (here, as for an agent that is not dumpable), a question on
// its terminal with no tool call open still stops the run, as before the
// kernel was asked; one on its stderr, or with a call open, does not. The
// log says once that the words decide. Not parallel with the package's
// other tests: it swaps the kernel the whole package reads.
func TestPersonFallback(t *testing.T) {
	kernel = denying{suffixes: []string{"/fd", "/fdinfo", "/syscall"}}
	t.Cleanup(func() { kernel = kernelFiles{} })
	readCall := `{"type":"tool_call","subtype":"started","call_id":"r1","tool_call":{"readToolCall":{"args":{"path":"x"}}}}`
	for _, tc := range []struct {
		name  string
		steps []string
		cause Cause
		kind  string
	}{
		{"on the terminal", []string{"line", `{"type":"system","subtype":"init","session_id":"s-1"}`, "raw", "Apply these changes? [y/N] ", "wait-tty"}, AwaitingPerson, watchdog.KindPerson},
		{"on stderr", []string{"err", "⚠ Workspace Trust Required", "wait-tty"}, Hung, watchdog.KindIdle},
		{"a call open", []string{"line", readCall, "raw", "Apply these changes? [y/N] ", "wait-tty"}, Hung, watchdog.KindTool},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			th := fast()
			th.IdleTimeout = 6 * time.Second
			log := &records{}
			res, _ := runAgent(t, Options{Thresholds: th, Asks: stream.Cursor.Asks, Log: sessionlog.NewRecorder(nil, sessionlog.SinkTo(log))}, tc.steps...)
			if res.Cause != tc.cause || res.Reason.Kind != tc.kind || res.Reason.WaitingOn != "" {
				t.Errorf("cause %v, reason %+v; want %v of kind %s", res.Cause, res.Reason, tc.cause, tc.kind)
			}
			w := log.warnings()
			if len(w) != 1 || !strings.Contains(w[0], "a question counts only on its terminal with no tool call open") || !strings.Contains(w[0], "permission denied") {
				t.Errorf("warnings %q, want the fallback said once", w)
			}
		})
	}
}

// TestPersonRuntime: an agent that is a launcher (a shell here, as node
// is Codex's) whose runtime process asks and waits on the terminal is
// waiting on a person when its profile names that runtime; under another
// name the child is not the agent, and the silence falls to the idle rule.
func TestPersonRuntime(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(self)
	name = name[:min(len(name), 15)] // what /proc/PID/comm keeps of it
	for _, runtime := range []string{name, ""} {
		t.Run("runtime "+runtime, func(t *testing.T) {
			t.Parallel()
			th := fast()
			th.IdleTimeout = 6 * time.Second
			o := Options{Path: "/bin/sh", Args: []string{"-c", `"$SELF" ` + fakeagent.Subcommand + ` raw "Apply these changes? [y/N] " wait-tty; :`},
				Env: append(agentEnv(), "SELF="+self), Parse: stream.Parse, Asks: stream.Cursor.Asks, Runtime: runtime, Thresholds: th, KillGrace: time.Second}
			o.Stdout = &output{}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			want, waits := Hung, ""
			if runtime != "" {
				want, waits = AwaitingPerson, "terminal"
			}
			if res.Cause != want || res.Reason.WaitingOn != waits {
				t.Errorf("cause %v, reason %+v; want %v", res.Cause, res.Reason, want)
			}
		})
	}
}
