package ptyproxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/scripts/testenv"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// TestMain re-executes the test binary as the fake agent when asked to,
// like os/exec's helper process.
func TestMain(m *testing.M) {
	if fakeagent.Is(os.Args[1:]) {
		os.Exit(fakeagent.Main(os.Args[1:]))
	}
	if err := Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// output collects what the proxy writes to stdout, with arrival times:
// when the proxy wrote them, which is what the proxy observed, on the
// clock its Outcome uses.
type output struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	times []time.Time // arrival of each newline
	first time.Time   // the first Write, whether it failed or not
	onNL  func(line []byte)
	fail  error         // returned by Write once set
	delay time.Duration // each Write takes this long: a slow reader downstream
}

func (o *output) Write(p []byte) (int, error) {
	time.Sleep(o.delay)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.first.IsZero() {
		o.first = time.Now()
	}
	if o.fail != nil {
		return 0, o.fail
	}
	o.buf.Write(p)
	for range bytes.Count(p, []byte("\n")) {
		o.times = append(o.times, time.Now())
	}
	if o.onNL != nil && bytes.IndexByte(p, '\n') >= 0 {
		lines := bytes.Split(bytes.TrimSuffix(o.buf.Bytes(), []byte("\n")), []byte("\n"))
		o.onNL(lines[len(lines)-1])
	}
	return len(p), nil
}

func (o *output) bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return bytes.Clone(o.buf.Bytes())
}

// arrival returns when the first line holding s was written to stdout.
func (o *output) arrival(t *testing.T, s string) time.Time {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, line := range bytes.Split(o.buf.Bytes(), []byte("\n")) {
		if bytes.Contains(line, []byte(s)) && i < len(o.times) {
			return o.times[i]
		}
	}
	t.Fatalf("no line with %q in %q", s, o.buf.Bytes())
	return time.Time{}
}

// logRecords keeps the records of an attempt's session log, each with the
// moment the proxy wrote it, on the clock its Outcome uses: the records'
// own time stamps are wall-clock time, which can step.
type logRecords struct {
	mu   sync.Mutex
	recs []logRecord
}

type logRecord struct {
	at     time.Time
	Msg    string `json:"msg"`
	Signal string `json:"signal"`
}

func (l *logRecords) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for line := range bytes.Lines(p) {
		var r logRecord
		if json.Unmarshal(line, &r) == nil {
			r.at = now
			l.recs = append(l.recs, r)
		}
	}
	return len(p), nil
}

// kill returns when the proxy logged sending sig.
func (l *logRecords) kill(t *testing.T, sig string) time.Time {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs {
		if r.Msg == sessionlog.MsgKill && r.Signal == sig {
			return r.at
		}
	}
	t.Fatalf("no %s in the log: %+v", sig, l.recs)
	return time.Time{}
}

// decided is when the proxy decided the outcome's hang or overdue exit,
// by the watchdog's own clock: it started with the attempt.
func decided(res Outcome) time.Time { return res.Started.Add(res.Reason.Elapsed) }

// jsonLines returns the stdout lines that decode as objects of a type.
func (o *output) jsonLines(typ string) []map[string]any {
	var out []map[string]any
	for line := range bytes.Lines(o.bytes()) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

// agentEnv is the fake agent's environment.
func agentEnv() []string {
	// The race runtime otherwise sleeps a second at exit.
	return append(os.Environ(), "GORACE=atexit_sleep_ms=0")
}

// fast are thresholds for tests that do not wait for the idle rule: its
// timeout leaves room for a loaded machine to start the agent (it holds
// from the attempt's start until the first line).
func fast() watchdog.Thresholds {
	th := watchdog.DefaultThresholds()
	th.IdleTimeout = 10 * time.Second
	th.ExitGrace = 2 * time.Second
	th.ActivityProbe = false
	return th
}

// runAgent runs the fake agent with steps under the proxy.
func runAgent(t *testing.T, o Options, steps ...string) (Outcome, *output) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := &output{}
	if o.Stdout == nil {
		o.Stdout = out
	} else if oo, ok := o.Stdout.(*output); ok {
		out = oo
	}
	o.Path, o.Args = self, append([]string{fakeagent.Subcommand}, steps...)
	o.Env = agentEnv()
	if o.Parse == nil {
		o.Parse = stream.Parse
	}
	if o.Thresholds.IdleTimeout == 0 {
		o.Thresholds = fast()
	}
	if o.KillGrace == 0 {
		o.KillGrace = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, out
}

// gone fails the test if any of the pids is still alive or a zombie.
func gone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		// A zombie is dead; reaping it is the SIGCHLD reaper's job (or
		// launchd's), and it may not have run yet. One the kernel is
		// tearing down is as good as dead: on a loaded machine that takes
		// a while, and meanwhile its environment, marker included, is
		// already gone.
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) && !exited(pid) && !dying(pid) {
			t.Errorf("pid %d (%s) survived the attempt", pid, commandLine(pid))
		}
	}
}

// dying reports whether the kernel is tearing pid down (PF_EXITING in the
// flags of /proc/PID/stat, Linux only).
func dying(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Fields resume after the command name's last ')'; flags is field 9.
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	if len(f) < 7 {
		return false
	}
	flags, _ := strconv.ParseUint(string(f[6]), 10, 32)
	const pfExiting = 0x4
	return flags&pfExiting != 0
}

func childPids(out *output) []int {
	var pids []int
	for _, c := range out.jsonLines("child") {
		pids = append(pids, int(c["pid"].(float64)))
	}
	return pids
}

// TestByteIdentical sends a non-JSON line, a 1 MiB line, a 64 MiB line, a
// realistic transcript and a last line without a newline, and checks
// stdout is byte for byte what the agent wrote.
//
// Neither side is held whole: what the agent will write is hashed as it is
// written to its file, and stdout as it arrives. Under the race detector a
// copy of tens of MB costs seconds in one call that nothing preempts, and
// the collector waits for it: every goroutine of the test binary that
// allocates stalls with it, the proxy's timers too, and the timing tests
// running beside this one failed (a 64 MiB line itself timed out as idle).
func TestByteIdentical(t *testing.T) {
	t.Parallel()
	transcript, err := os.ReadFile("../stream/testdata/newline-callid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	want := newDigest()
	w := bufio.NewWriter(io.MultiWriter(f, want))
	w.WriteString("T: Named models unavailable\n")
	w.WriteString("\x1b[32mcolour\x1b[0m\ttab\r\n\x03\x04\x1a\x7f\n")
	bigLine := func(fill byte, n int) {
		w.WriteString(`{"type":"big","data":"`)
		chunk := bytes.Repeat([]byte{fill}, 64<<10)
		for range n / len(chunk) {
			w.Write(chunk)
		}
		w.WriteString("\"}\n")
	}
	bigLine('y', 1<<20)
	bigLine('z', 64<<20)
	// After its result an agent only has a few bytes left to write: one
	// that goes on for long is stopped.
	w.Write(transcript)
	w.WriteString(`{"type":"result","subtype":"success"}` + "\x1b[?25h\x1b7")
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	got := newDigest()
	// The agent reads the whole file before its first line.
	th := fast()
	th.IdleTimeout = 20 * time.Second
	res, _ := runAgent(t, Options{IO: IO{Stdout: got}, Thresholds: th}, "replay", file, "1000000")
	if got.n != want.n || got.sum() != want.sum() {
		t.Fatalf("stdout differs: got %d bytes (sha %s), want %d (sha %s); outcome %+v", got.n, got.sum(), want.n, want.sum(), res)
	}
	if res.Cause != Exited || res.ExitCode != 0 || !res.MidLine || res.SessionID == "" {
		t.Errorf("outcome %+v", res)
	}
}

// digest is a writer that keeps only the length and SHA-256 of what it
// was given.
type digest struct {
	h hash.Hash
	n int64
}

func newDigest() *digest { return &digest{h: sha256.New()} }

func (d *digest) Write(p []byte) (int, error) {
	d.n += int64(len(p))
	return d.h.Write(p)
}

func (d *digest) sum() string { return hex.EncodeToString(d.h.Sum(nil)[:8]) }

// TestTTY checks what the agent sees: stdout a raw terminal of the given
// size that is its controlling terminal, stdin and stderr pipes, no
// inherited ignored signals, its own session and group.
func TestTTY(t *testing.T) {
	t.Parallel()
	res, out := runAgent(t, Options{IO: IO{WinSize: WinSize{Rows: 50, Cols: 200}}}, "tty", "line", "a\nb")
	r := out.jsonLines("tty")
	if len(r) != 1 {
		t.Fatalf("no tty report in %q", out.bytes())
	}
	tty := r[0]
	for k, want := range map[string]any{"stdout": true, "stdin": false, "stderr": false, "opost": false, "onlcr": false, "echo": false,
		"rows": 50.0, "cols": 200.0, "sig_ign": "0000000000000000"} {
		if tty[k] != want {
			t.Errorf("agent saw %s = %v, want %v", k, tty[k], want)
		}
	}
	if tty["pid"] != tty["pgid"] || tty["pid"] != tty["sid"] {
		t.Errorf("agent not a session and group leader: %v", tty)
	}
	if !bytes.HasSuffix(out.bytes(), []byte("a\nb\n")) {
		t.Errorf("newlines translated: %q", out.bytes())
	}
	if res.ExitCode != 0 {
		t.Errorf("exit %d", res.ExitCode)
	}
}

// TestDefaultSizeAndResize checks the fallback size and a resize through
// the nonblocking master.
func TestDefaultSizeAndResize(t *testing.T) {
	t.Parallel()
	resize := make(chan WinSize, 1)
	out := &output{}
	out.onNL = func(line []byte) {
		if bytes.Contains(line, []byte(`"type":"tty"`)) && len(resize) == 0 {
			select {
			case resize <- WinSize{Rows: 40, Cols: 132}:
			default:
			}
		}
	}
	runAgent(t, Options{IO: IO{Stdout: out, Resize: resize}}, "tty", "sleep", "300ms", "tty")
	r := out.jsonLines("tty")
	if len(r) != 2 {
		t.Fatalf("want 2 tty reports, got %q", out.bytes())
	}
	if r[0]["rows"] != 24.0 || r[0]["cols"] != 80.0 {
		t.Errorf("default size %vx%v, want 24x80", r[0]["rows"], r[0]["cols"])
	}
	if r[1]["rows"] != 40.0 || r[1]["cols"] != 132.0 {
		t.Errorf("after resize %vx%v, want 40x132", r[1]["rows"], r[1]["cols"])
	}
}

// TestLineBufferedLive checks that an agent which block-buffers when piped
// still delivers each event as it is written, because it sees a terminal.
func TestLineBufferedLive(t *testing.T) {
	t.Parallel()
	_, out := runAgent(t, Options{}, "buffered", "line", `{"type":"a"}`, "sleep", "1s", "line", `{"type":"b"}`)
	if len(out.times) != 2 {
		t.Fatalf("lines: %q", out.bytes())
	}
	// Held back, both would come out together at the agent's exit; the
	// second's read may be late on a loaded machine.
	if gap := out.times[1].Sub(out.times[0]); gap < 500*time.Millisecond {
		t.Errorf("first event arrived only %v before the second: it was held back", gap)
	}
}

func TestStdin(t *testing.T) {
	t.Parallel()
	input := bytes.Repeat([]byte("prompt "), 150000) // larger than a pipe
	s := sha256.Sum256(input)
	_, out := runAgent(t, Options{IO: IO{Stdin: bytes.NewReader(input)}}, "stdin")
	r := out.jsonLines("stdin")
	if len(r) != 1 || r[0]["bytes"] != float64(len(input)) || r[0]["sha256"] != hex.EncodeToString(s[:]) {
		t.Fatalf("agent read %v", r)
	}
	// With no input the agent's stdin is closed at once: it reads EOF.
	_, out = runAgent(t, Options{}, "stdin")
	if r := out.jsonLines("stdin"); len(r) != 1 || r[0]["bytes"] != 0.0 {
		t.Fatalf("agent read %v", r)
	}
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	for _, code := range []int{0, 1, 2, 3, 126, 255} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			res, _ := runAgent(t, Options{}, "exit", fmt.Sprint(code))
			if res.Cause != Exited || res.ExitCode != code || res.ExitSignal != 0 {
				t.Errorf("outcome %+v", res)
			}
		})
	}
	t.Run("SIGSEGV", func(t *testing.T) {
		t.Parallel()
		// The Go runtime turns SIGSEGV into exit 2, so a shell plays the agent.
		res, err := Run(context.Background(), Options{Path: "/bin/sh", Args: []string{"-c", "kill -SEGV $$"}, IO: IO{Stdout: io.Discard}, Thresholds: fast()})
		if err != nil || res.ExitSignal != syscall.SIGSEGV || res.ExitCode != -1 {
			t.Errorf("outcome %+v, %v", res, err)
		}
	})
	t.Run("SIGHUP", func(t *testing.T) {
		t.Parallel()
		res, _ := runAgent(t, Options{}, "kill", "HUP")
		if res.ExitSignal != syscall.SIGHUP || res.ExitCode != -1 {
			t.Errorf("outcome %+v", res)
		}
	})
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "agent")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for path, want := range map[string]error{filepath.Join(dir, "missing"): reaper.ErrNotFound, notExec: reaper.ErrNotExecutable, dir: reaper.ErrNotExecutable} {
		_, err := Run(context.Background(), Options{Path: path, IO: IO{Stdout: io.Discard}})
		if !errors.Is(err, want) {
			t.Errorf("Run(%s) = %v, want %v", path, err, want)
		}
	}
}

// TestHangKill checks the idle rule end to end: the agent that stops
// talking is stopped, its whole tree with it, including a descendant that
// moved to its own session and ignores SIGTERM and SIGHUP.
func TestHangKill(t *testing.T) {
	t.Parallel()
	th := fast()
	th.IdleTimeout = time.Second
	res, out := runAgent(t, Options{Thresholds: th, KillGrace: 10 * time.Second},
		"setsid-child", "group-child", "hold-pty", "line", `{"type":"thinking","subtype":"delta"}`, "hang")
	if res.Cause != Hung || res.Reason.Kind != watchdog.KindIdle || res.Reason.Silence < th.IdleTimeout {
		t.Fatalf("outcome %+v", res)
	}
	if res.ExitSignal != syscall.SIGTERM {
		t.Errorf("agent ended by %v, want SIGTERM", res.ExitSignal)
	}
	// The agent honours SIGTERM, so the grace is not waited out even though
	// its setsid child ignores SIGTERM.
	if took := res.Ended.Sub(decided(res)); took > 5*time.Second {
		t.Errorf("stopped %v after the hang, want well within the 10s grace", took)
	}
	pids := childPids(out)
	if len(pids) != 3 {
		t.Fatalf("children: %q", out.bytes())
	}
	gone(t, pids...)
}

// TestIgnoreTerm checks that an agent ignoring SIGTERM dies by SIGKILL
// after the grace.
func TestIgnoreTerm(t *testing.T) {
	t.Parallel()
	th := fast()
	th.IdleTimeout = time.Second
	log := &logRecords{}
	res, out := runAgent(t, Options{Thresholds: th, KillGrace: 400 * time.Millisecond, Log: sessionlog.NewRecorder(nil, sessionlog.SinkTo(log))}, "ignore-term", "setsid-child", "hang")
	if res.Cause != Hung || res.ExitSignal != syscall.SIGKILL || res.Reason.Silence < th.IdleTimeout {
		t.Fatalf("outcome %+v", res)
	}
	// The SIGKILL is logged once what it killed is gone.
	if grace := log.kill(t, "SIGKILL").Sub(log.kill(t, "SIGTERM")); grace < 400*time.Millisecond || grace > 1400*time.Millisecond {
		t.Errorf("SIGKILL %v after SIGTERM, want about the 400ms grace", grace)
	}
	gone(t, childPids(out)...)
}

// TestStoppedAgent checks that a stopped agent is continued so it can die
// by SIGTERM well before the grace is over.
func TestStoppedAgent(t *testing.T) {
	t.Parallel()
	th := fast()
	th.IdleTimeout = time.Second
	out := &output{}
	out.onNL = func(line []byte) {
		var tty struct{ Pid int }
		if json.Unmarshal(line, &tty) == nil && tty.Pid > 0 {
			syscall.Kill(tty.Pid, syscall.SIGSTOP)
		}
	}
	res, _ := runAgent(t, Options{IO: IO{Stdout: out}, Thresholds: th, KillGrace: 10 * time.Second}, "tty", "hang")
	if res.Cause != Hung || res.ExitSignal != syscall.SIGTERM {
		t.Fatalf("outcome %+v", res)
	}
	if took := res.Ended.Sub(decided(res)); took > 5*time.Second {
		t.Errorf("stopped %v after the hang: the stopped agent waited for SIGKILL after the 10s grace", took)
	}
}

// TestHeldPTY checks that an agent whose grandchild keeps the PTY open
// does not keep the attempt alive after it exits, loses no output, and
// leaves no process behind.
func TestHeldPTY(t *testing.T) {
	t.Parallel()
	res, out := runAgent(t, Options{}, "hold-pty", "big", "65536", "line", "last", "exit", "0")
	// A held PTY would keep the attempt to the 10 s idle timeout after the
	// agent's last line.
	if took := res.Ended.Sub(out.arrival(t, "last")); took > 5*time.Second {
		t.Errorf("ended %v after the last line", took)
	}
	if res.Cause != Exited || res.ExitCode != 0 {
		t.Errorf("outcome %+v", res)
	}
	if !bytes.HasSuffix(out.bytes(), []byte("\nlast\n")) || len(out.bytes()) < 65536 {
		t.Errorf("output lost: %d bytes", len(out.bytes()))
	}
	gone(t, childPids(out)...)
}

// TestOverdue checks the post-result rule: an agent that prints its result
// and lingers is killed after the exit grace, and it is no hang.
func TestOverdue(t *testing.T) {
	t.Parallel()
	th := fast()
	// After the result, never a hang: the idle timeout is shorter than the
	// exit grace, but longer than a loaded machine takes to start the agent
	// (the idle rule holds from the attempt's start until its first line).
	th.IdleTimeout = 2 * time.Second
	th.ExitGrace = 3 * time.Second
	res, _ := runAgent(t, Options{Thresholds: th}, "line", `{"type":"result","subtype":"success","session_id":"s"}`, "hang")
	if res.Cause != Overdue || !res.Done || res.SessionID != "s" || res.Reason.Kind != watchdog.KindExit {
		t.Fatalf("outcome %+v", res)
	}
	// The silence since the result, as the watchdog measured it when it
	// decided.
	if after := res.Reason.Silence; after < th.ExitGrace || after > th.ExitGrace+2*time.Second {
		t.Errorf("overdue %v after the result, want about the exit grace", after)
	}
}

// TestDownstreamClosed checks that a stdout that fails ends the attempt:
// the agent is stopped rather than left running.
func TestDownstreamClosed(t *testing.T) {
	t.Parallel()
	out := &output{fail: syscall.EPIPE}
	res, _ := runAgent(t, Options{IO: IO{Stdout: out}}, "line", "x", "hang")
	if res.Cause != Downstream || res.ExitSignal != syscall.SIGTERM {
		t.Errorf("outcome %+v", res)
	}
	if took := res.Ended.Sub(out.first); took > 2*time.Second {
		t.Errorf("stopped %v after the write failed", took)
	}
}

func TestSignalForwarded(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 1)
	out := &output{}
	out.onNL = func([]byte) {
		select {
		case sigs <- syscall.SIGINT:
		default:
		}
	}
	res, _ := runAgent(t, Options{IO: IO{Stdout: out, Signals: sigs}}, "line", "ready", "hang")
	if res.Cause != Interrupted || res.Signal != syscall.SIGINT || res.ExitSignal != syscall.SIGINT {
		t.Errorf("outcome %+v", res)
	}
}

// TestCancel checks that cancelling the context kills the tree at once.
func TestCancel(t *testing.T) {
	t.Parallel()
	self, _ := os.Executable()
	ctx, cancel := context.WithCancel(context.Background())
	out := &output{}
	var cancelled time.Time
	out.onNL = func([]byte) {
		cancelled = time.Now()
		cancel()
	}
	res, err := Run(ctx, Options{Path: self, Args: []string{fakeagent.Subcommand, "ignore-term", "line", "x", "hang"},
		Env: agentEnv(), IO: IO{Stdout: out}, Parse: stream.Parse, Thresholds: fast(), KillGrace: 10 * time.Second})
	if err != nil || res.Cause != Cancelled || res.ExitSignal != syscall.SIGKILL {
		t.Errorf("Run = %+v, %v", res, err)
	}
	if took := res.Ended.Sub(cancelled); took > 2*time.Second {
		t.Errorf("stopped %v after the cancel, want at once, not after the 10s grace", took)
	}
}

// TestMasterNonblocking checks the creack/pty trap: its master comes back
// blocking, so start makes it nonblocking once, and a resize through
// SyscallConn leaves it so (pty.Setsize on it would not); and that neither
// end of the PTY is in Go's poller.
func TestMasterNonblocking(t *testing.T) {
	t.Parallel()
	self, _ := os.Executable()
	p, err := start(&Options{Path: self, Args: []string{fakeagent.Subcommand, "hang"}}, agentEnv())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-p.pid, syscall.SIGKILL)
		<-p.exited
		p.closeAll()
	}()
	nonblocking := func() bool {
		rc, _ := p.master.SyscallConn()
		var flags int
		rc.Control(func(fd uintptr) { flags, _ = unix.FcntlInt(fd, unix.F_GETFL, 0) })
		return flags&unix.O_NONBLOCK != 0
	}
	if !nonblocking() {
		t.Fatal("master is blocking after start")
	}
	if err := p.resize(WinSize{Rows: 10, Cols: 20}); err != nil || !nonblocking() {
		t.Fatalf("after resize: err %v, nonblocking %v", err, nonblocking())
	}
	// Both ends are outside Go's poller (see unpoll), which alone has
	// deadlines; the reader's own deadline is covered by TestHeldPTY.
	for _, f := range []*os.File{p.master, p.slave} {
		if err := f.SetReadDeadline(time.Now()); !errors.Is(err, os.ErrNoDeadline) {
			t.Errorf("%s: SetReadDeadline = %v, want os.ErrNoDeadline (not polled)", f.Name(), err)
		}
	}
}

// slowWriter is a stdout whose reader is late: its first write stalls.
type slowWriter struct {
	output
	once sync.Once
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { time.Sleep(500 * time.Millisecond) })
	return w.output.Write(p)
}

// TestFastExitSlowReader checks that an agent which writes and exits at
// once, while the wrapper's stdout is still stalled, loses nothing: the
// parent holds its slave copy until the agent is reaped.
func TestFastExitSlowReader(t *testing.T) {
	t.Parallel()
	w := &slowWriter{}
	self, _ := os.Executable()
	res, err := Run(context.Background(), Options{Path: self, Args: []string{fakeagent.Subcommand, "big", "65536", "line", "end", "exit", "0"},
		Env: agentEnv(), IO: IO{Stdout: w}, Parse: stream.Parse, Thresholds: fast()})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if got := w.bytes(); len(got) != 65536+1+4 || !bytes.HasSuffix(got, []byte("\nend\n")) {
		t.Errorf("got %d bytes, want %d", len(got), 65536+5)
	}
}

const undeclared = `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"make"}}}}`

// TestActivityEvidence checks the activity rule with real processes: a
// silent agent that burns CPU or reads is tolerated past the idle timeout
// (up to max_silence); a silent idle one is killed at the idle timeout.
// Silences are the proxy's own measure: the longest one it saw and let
// pass, or the one it declared a hang at.
func TestActivityEvidence(t *testing.T) {
	t.Parallel()
	if !procAvailable() {
		testenv.SkipOutsideCI(t, "the activity of processes cannot be read here (no /proc, or on macOS no ps)")
	}
	for _, tc := range []struct {
		name     string
		steps    []string
		maxSil   time.Duration
		wantHang bool
		// silence is the least the proxy must have let pass (no hang), or
		// have seen when it declared the hang.
		silence time.Duration
	}{
		{"burning CPU", []string{"line", "x", "burn", "2500ms", "line", `{"type":"result"}`}, 10 * time.Second, false, 1500 * time.Millisecond},
		{"idle", []string{"line", "x", "sleep", "5s", "line", `{"type":"result"}`}, 10 * time.Second, true, time.Second},
		{"busy past max_silence", []string{"line", "x", "burn", "10s"}, 2 * time.Second, true, 2 * time.Second},
		// A tool started with no declared timeout runs in its own session,
		// as real agents start their tools: its process is the evidence.
		{"undeclared call, tool process alive", []string{"line", undeclared, "setsid-child", "sleep", "2500ms", "line", `{"type":"result"}`}, 10 * time.Second, false, 1500 * time.Millisecond},
		// A dev server an earlier call left running is no sign that the
		// call open now is at work.
		{"undeclared call, a dev server from before", []string{"setsid-child", "sleep", "700ms", "line", "x", "sleep", "700ms", "line", undeclared, "hang"}, 10 * time.Second, true, time.Second},
		{"undeclared call, nothing running", []string{"line", undeclared, "sleep", "5s", "line", `{"type":"result"}`}, 10 * time.Second, true, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.name == "reading" && runtime.GOOS == "darwin" {
				t.Skip("bytes read are measured on Linux only (/proc/PID/io); the read floor does not count on macOS")
			}
			th := fast()
			th.ActivityProbe = true
			th.IdleTimeout = time.Second
			th.MaxSilence = tc.maxSil
			res, _ := runAgent(t, Options{Thresholds: th}, tc.steps...)
			if got := res.Cause == Hung; got != tc.wantHang {
				t.Fatalf("hung = %v, want %v; outcome %+v", got, tc.wantHang, res)
			}
			if !tc.wantHang && res.LongestSilence < tc.silence {
				t.Errorf("the longest silence let pass was %v, want past the 1s idle timeout: %v", res.LongestSilence, tc.silence)
			}
			if tc.wantHang && res.Reason.Silence < tc.silence {
				t.Errorf("hang declared after %v of silence, want at least %v", res.Reason.Silence, tc.silence)
			}
			if tc.wantHang && tc.maxSil < 10*time.Second && res.Reason.Evidence.ActiveWindows == 0 {
				t.Errorf("hang at max_silence does not report the evidence: %+v", res.Reason.Evidence)
			}
			if strings.Contains(tc.name, "dev server") && (res.Reason.Evidence.Tool || res.Reason.Evidence.Extended > 0) {
				t.Errorf("the dev server excused the silence: %+v", res.Reason.Evidence)
			}
			if tc.name == "idle" && (res.Reason.Evidence.Windows == 0 || res.Reason.Evidence.ActiveWindows != 0) {
				t.Errorf("idle hang evidence %+v", res.Reason.Evidence)
			}
		})
	}
}

// TestHardTimeoutWhileFlowing checks the hard deadline is kept while the
// agent writes without pause: each batch re-arms the timer, so the batch
// that sees the deadline passed must act.
func TestHardTimeoutWhileFlowing(t *testing.T) {
	t.Parallel()
	// The hard timeout is set once the lines flow (3 s of them), to fall
	// 300 ms later, however long a loaded machine took to start the agent.
	th := fast()
	reload := make(chan Reload, 1)
	out := &output{}
	before := time.Now() // the attempt starts after this
	var hard time.Duration
	out.onNL = func([]byte) {
		if hard == 0 {
			hard = time.Since(before) + 300*time.Millisecond
			th.HardTimeout = hard
			SendReload(reload, Reload{Thresholds: th})
		}
	}
	res, _ := runAgent(t, Options{IO: IO{Stdout: out}, Thresholds: fast(), Reload: reload}, "tick", "3000", "1ms")
	if res.Cause != Hung || res.Reason.Kind != watchdog.KindDeadline || res.Reason.Threshold != hard {
		t.Fatalf("outcome %+v", res)
	}
	// As the watchdog measured it: without the batch acting, the deadline
	// would be seen only once the lines stop.
	if late := res.Reason.Elapsed - hard; late < 0 || late > time.Second {
		t.Errorf("declared %v after the %v hard timeout", late, hard)
	}
}

// TestMultiLineEvents replays cursor-agent output whose strings hold raw
// newlines: a tool completion and a result written across several lines.
// The call closes, the result is seen (an agent that lingers after it is
// stopped as overdue, a success, not killed as hung), the answer comes out
// whole, and stdout is byte for byte what the agent wrote.
func TestMultiLineEvents(t *testing.T) {
	t.Parallel()
	for _, fixture := range []string{"cursor-multiline-result.jsonl", "cursor-multiline-normal.jsonl"} {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("..", "stream", "testdata", "wild", fixture)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			th := fast()
			th.ExitGrace = 300 * time.Millisecond
			res, out := runAgent(t, Options{Thresholds: th}, "replay", path, "1000000", "hang")
			if got := out.bytes(); !bytes.Equal(got, want) {
				t.Errorf("stdout differs: got %d bytes, want %d", len(got), len(want))
			}
			if res.Cause != Overdue || !res.Done || len(res.SilenceOpen) > 0 {
				t.Errorf("outcome %+v", res)
			}
			if !strings.Contains(res.Answer, "\n") {
				t.Errorf("answer not whole: %q", res.Answer)
			}
		})
	}
}

// TestDrainBounded: the agent answers and exits, but a grandchild in a
// session of its own keeps writing to the PTY every 50 ms. The drain ends
// within its bound and the grandchild is killed: neither keeps the other
// alive.
func TestDrainBounded(t *testing.T) {
	t.Parallel()
	res, out := runAgent(t, Options{}, "chatty-child", "line", `{"type":"result","subtype":"success"}`, "exit", "0")
	if res.Cause != Exited || !res.Done || res.ExitCode != 0 {
		t.Errorf("outcome %+v", res)
	}
	// From the agent's last line, written as it exits: the drain (2 s at
	// most), then the leftover's kill grace (1 s in runAgent), with room
	// for a loaded machine.
	if took := res.Ended.Sub(out.arrival(t, `"type":"result"`)); took > drainMax+time.Second+2*time.Second {
		t.Errorf("the attempt ended %v after the agent's last line", took)
	}
	gone(t, childPids(out)...)
}

// TestDrainSlowReader: the agent writes more than the PTY holds and exits
// while the wrapper's stdout takes 20 ms a write. The last bytes wait in the
// PTY past the drain's quiet deadline, and are still forwarded.
func TestDrainSlowReader(t *testing.T) {
	t.Parallel()
	out := &output{delay: 20 * time.Millisecond}
	res, _ := runAgent(t, Options{IO: IO{Stdout: out}}, "lines", "2000", "100", "exit", "0")
	if got := bytes.Count(out.bytes(), []byte("\n")); got != 2000 || res.Lines != 2000 {
		t.Errorf("%d lines forwarded, %d seen, want 2000", got, res.Lines)
	}
}

// TestOrphanByAncestry: a daemon an agent starts with an empty environment
// in a session of its own carries no marker. With another attempt running
// beside (as MCP calls do), it is still killed by the end: by its own
// attempt when it can tell, else by the last attempt that could own it.
//
// Not parallel: the attempts of other tests, running beside in this
// process, could own the daemon too, and the last of them to end (after
// this test looked) would be the one to kill it.
func TestOrphanByAncestry(t *testing.T) {
	other := make(chan Outcome, 1)
	started := make(chan struct{})
	var once sync.Once
	first := &output{onNL: func([]byte) { once.Do(func() { close(started) }) }}
	go func() {
		res, _ := runAgent(t, Options{IO: IO{Stdout: first}}, "line", "x", "sleep", "1500ms", "line", `{"type":"result"}`, "exit", "0")
		other <- res
	}()
	<-started // The other attempt is running before this one starts.
	res, out := runAgent(t, Options{}, "setsid-noenv", "line", `{"type":"result"}`, "exit", "0")
	daemons := childPids(out)
	if len(daemons) != 1 || !res.Done {
		t.Fatalf("outcome %+v, children %v", res, daemons)
	}
	<-other
	gone(t, daemons...)
}

// TestSttySane: an agent that turns its terminal's output processing back
// on (stty sane) still has its output forwarded byte for byte.
func TestSttySane(t *testing.T) {
	t.Parallel()
	res, out := runAgent(t, Options{}, "stty-sane", "lines", "200", "100", "line", `{"type":"result"}`, "exit", "0")
	got := out.bytes()
	if bytes.Contains(got, []byte("\r")) || bytes.Count(got, []byte("\n")) != 201 || !res.Done {
		t.Errorf("%d bytes, %d \\r, %d lines; outcome %+v", len(got), bytes.Count(got, []byte("\r")), bytes.Count(got, []byte("\n")), res)
	}
}
