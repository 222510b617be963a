package job

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// logged is a session log kept whole, read back as records.
type logged struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logged) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// inputs returns the input records written so far.
func (l *logged) inputs(t *testing.T) []sessionlog.Input {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []sessionlog.Input
	for line := range bytes.Lines(l.b.Bytes()) {
		var r struct {
			Msg string
			sessionlog.Input
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Msg == "input" {
			out = append(out, r.Input)
		}
	}
	return out
}

// pipeJob is a job of cursor with a prompt in its args, whose stdin is a
// pipe the test writes to (w).
func pipeJob(t *testing.T) (*Job, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	j := &Job{Cmd: Command{Profile: stream.Cursor, Args: []string{"-p", "fix it"}}}
	j.Stdin = r
	j.init()
	return j, w
}

// TestStdinWaitZero: --stdin-wait 0 waits for the stdin's end, however
// late its bytes come: the source is the stdin itself.
func TestStdinWaitZero(t *testing.T) {
	t.Parallel()
	j, w := pipeJob(t)
	src := j.stdinSource(0)
	if src != j.Stdin || j.silent != nil {
		t.Fatalf("stdin_wait 0 gave %T, want the stdin itself", src)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		w.WriteString("late context")
		w.Close()
	}()
	if b, err := io.ReadAll(src); string(b) != "late context" || err != nil {
		t.Errorf("read %q, %v", b, err)
	}
	// Without a prompt in the args, stdin is the prompt: never closed early.
	j.Cmd.Args = []string{"-p"}
	if src := j.stdinSource(time.Second); src != j.Stdin {
		t.Errorf("stdin holding the prompt gave %T, want the stdin itself", src)
	}
}

// TestStdinClosedAfterTheWait: a pipe that gives nothing within the wait
// ends there for the agent, and the decision is a record in the running
// attempt's log; what the pipe holds by the attempt's end is a second
// record, with its bytes, left unread.
func TestStdinClosedAfterTheWait(t *testing.T) {
	t.Parallel()
	j, w := pipeJob(t)
	log := &logged{}
	rec := sessionlog.NewRecorder(j.redact, sessionlog.SinkTo(log))
	j.rec = rec
	src := j.stdinSource(100 * time.Millisecond)
	start := time.Now()
	if b, err := io.ReadAll(src); len(b) != 0 || err != nil || time.Since(start) < 100*time.Millisecond {
		t.Fatalf("read %q, %v after %v; want nothing after the wait", b, err, time.Since(start))
	}
	j.lateStdin(rec)
	w.WriteString("too late")
	j.lateStdin(rec)
	j.lateStdin(rec) // Said once.
	got := log.inputs(t)
	if len(got) != 2 || got[0].Change != sessionlog.StdinClosed || !strings.Contains(got[0].Message, "stdin gave nothing for 100ms") ||
		got[1].Change != sessionlog.StdinLate || got[1].Bytes != int64(len("too late")) {
		t.Errorf("records %+v", got)
	}
	b := make([]byte, 64)
	n, _ := j.Stdin.(*os.File).Read(b)
	if string(b[:n]) != "too late" {
		t.Errorf("the late bytes were taken: %q left", b[:n])
	}
}
