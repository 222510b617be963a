package telemetry

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
)

// Binary is the exporter's program: installed beside the wrapper (and the
// MCP server), else found on PATH.
const Binary = "cursor-wrap-otel"

// maxQueue bounds the records waiting for the exporter: past it they are
// dropped and counted (the exporter is told how many), never waited for.
const maxQueue = 4 << 20

// maxFailures bounds what is kept of the exporter's reports.
const maxFailures = 8

// A Failure is a signal the collector did not take, as the exporter
// reports it.
type Failure struct {
	Signal string `json:"signal"`
	Error  string `json:"error"`
}

// An Exporter is the exporter process of one run, fed the run's records.
// Write queues records and never waits: a queue that stays full (an
// exporter stuck behind a collector that does not answer) drops them. The
// process is started by a goroutine, beside the agent's start; Close ends
// it within the flush bound.
type Exporter struct {
	s    Settings
	mu   sync.Mutex
	cond *sync.Cond
	// queue holds whole records; dropped counts those that found no room.
	queue    []byte
	dropped  int
	closed   bool
	overdue  bool // the flush bound passed: the process is killed
	failures []Failure
	stdin    io.WriteCloser
	fed      chan struct{} // closed when the feeder has given up the pipe
	exited   chan struct{} // closed when the process has been waited for
	cmd      *reaper.Cmd
}

// Start starts the exporter of a run with the settings s.
func Start(s Settings) *Exporter {
	e := &Exporter{s: s, fed: make(chan struct{}), exited: make(chan struct{})}
	e.cond = sync.NewCond(&e.mu)
	go e.run()
	return e
}

// Write queues whole records (one or more lines, as the log is given
// them), masked. It never fails and never waits for the exporter.
func (e *Exporter) Write(m redact.Masked) {
	p := m.Bytes()
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed:
	case len(e.queue)+len(p) > maxQueue:
		e.dropped += max(1, bytes.Count(p, []byte("\n")))
	default:
		e.queue = append(e.queue, p...)
		e.cond.Broadcast()
	}
}

// run starts the process and feeds it until Close.
func (e *Exporter) run() {
	defer close(e.fed)
	if err := e.start(); err != nil {
		e.fail(Failure{Signal: e.signals(), Error: err.Error()})
		close(e.exited)
		e.mu.Lock()
		e.queue = nil
		e.mu.Unlock()
		return
	}
	var buf []byte
	e.mu.Lock()
	for {
		for len(e.queue) == 0 && e.dropped == 0 && !e.closed {
			e.cond.Wait()
		}
		if len(e.queue) == 0 && e.dropped == 0 {
			break
		}
		buf, e.queue = e.queue, buf[:0]
		dropped := e.dropped
		e.dropped = 0
		e.mu.Unlock()
		if dropped > 0 {
			sessionlog.NewRecorder(nil, sessionlog.SinkTo(e.stdin)).Write(sessionlog.LogDropped{Records: dropped})
		}
		_, err := e.stdin.Write(buf)
		e.mu.Lock()
		if err != nil {
			// The process is gone, or killed at the flush bound.
			e.closed, e.queue = true, nil
			break
		}
	}
	e.mu.Unlock()
	e.stdin.Close() // The exporter's end of input: it flushes and exits.
}

// start starts the exporter process: in a process group of its own, so
// that the terminal's Ctrl-C, which the wrapper passes on to the agent,
// does not end it before it flushed, with its reports on stdout.
func (e *Exporter) start() error {
	path, err := Find()
	if err != nil {
		return err
	}
	args := []string{"--flush", e.s.Flush.String(), fmt.Sprintf("--traces=%t", e.s.Traces), fmt.Sprintf("--metrics=%t", e.s.Metrics)}
	if e.s.Capture {
		args = append(args, "--capture-content")
	}
	cmd := reaper.Command(path, args...)
	cmd.Env = e.s.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if e.stdin, err = cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr := &tail{max: 2048}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", path, err)
	}
	e.mu.Lock()
	e.cmd = cmd
	if e.overdue {
		e.kill()
	}
	e.mu.Unlock()
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var f Failure
			if json.Unmarshal(sc.Bytes(), &f) == nil && f.Error != "" {
				e.fail(f)
			}
		}
		if err := cmd.Wait(); err != nil && !e.killed() {
			e.fail(Failure{Signal: e.signals(), Error: strings.TrimSpace(fmt.Sprintf("%s ended: %v %s", Binary, err, stderr))})
		}
		close(e.exited)
	}()
	return nil
}

// Find looks for the exporter beside the running binary, then on PATH.
func Find() (string, error) {
	self, _ := os.Executable()
	path := filepath.Join(filepath.Dir(self), Binary)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	path, err := exec.LookPath(Binary)
	if err != nil {
		return "", fmt.Errorf("%s is neither beside %s nor on PATH: install it with `go install ./ptyproxy/telemetry/cmd/%s` (scripts/install.sh installs it)", Binary, self, Binary)
	}
	return path, nil
}

// signals names what the run exports, for a failure of the whole export.
func (e *Exporter) signals() string {
	switch {
	case e.s.Traces && e.s.Metrics:
		return "traces and metrics"
	case e.s.Traces:
		return "traces"
	}
	return "metrics"
}

func (e *Exporter) fail(f Failure) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.failures) < maxFailures {
		e.failures = append(e.failures, f)
	}
}

// killed reports whether Close killed the process at the flush bound.
func (e *Exporter) killed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.overdue
}

// Close ends the input and waits for the exporter to send what it has, at
// most the flush bound; an exporter still running then (a collector that
// does not answer) is killed. It returns what the exporter reported.
func (e *Exporter) Close() []Failure {
	deadline := time.NewTimer(e.s.Flush)
	defer deadline.Stop()
	e.mu.Lock()
	e.closed = true
	e.cond.Broadcast()
	e.mu.Unlock()
	select {
	case <-e.exited:
	case <-deadline.C:
		e.mu.Lock()
		e.overdue = true
		e.kill()
		e.mu.Unlock()
		<-e.exited
		e.fail(Failure{Signal: e.signals(), Error: fmt.Sprintf("not all sent within otel_flush_timeout (%s): the collector did not answer in time", e.s.Flush)})
	}
	<-e.fed
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.failures)
}

// kill ends the process and anything it started: it leads its group. A
// process still being started is killed by start. e.mu held.
func (e *Exporter) kill() {
	if e.cmd != nil {
		_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// tail keeps the end of what is written to it: the exporter's stderr, for
// a crash.
type tail struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.b))
}
