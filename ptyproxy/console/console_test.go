package console

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/redact"
)

// settle waits until the console's writer has written everything queued.
func settle(c *Console) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.idle || len(c.queue) > 0 || c.status != nil {
		c.cond.Wait()
	}
}

func TestConsoleStatusLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := New(&b, true, func() int { return 20 })
	for _, step := range []func(){
		func() { c.Status(text("cursor-wrap 1s | thinking | silent 0s")) },
		func() { c.Write([]byte("agent stderr\n")) },
		func() { c.Status(text("cursor-wrap 2s")) },
		func() { c.Write([]byte("partial")) },
		func() { c.Status(text("not drawn mid-line")) },
		func() { slog.New(c.Handler(slog.LevelInfo, nil)).Info("hello", "k", "v w") },
		func() { slog.New(c.Handler(slog.LevelInfo, nil)).Debug("hidden") },
		func() { c.Status(text("")) },
	} {
		step()
		settle(c)
	}
	c.Close(time.Second)
	want := "\rcursor-wrap 1s | t…\x1b[K" + "\r\x1b[K" + "agent stderr\n" +
		"\rcursor-wrap 2s\x1b[K" + "\r\x1b[K" + "partial" +
		"\ncursor-wrap: hello k=\"v w\"\n"
	if b.String() != want {
		t.Errorf("console wrote\n%q\nwant\n%q", b.String(), want)
	}
}

func TestConsoleNoTTY(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := New(&b, false, nil)
	c.Status(text("never drawn"))
	slog.New(redact.New([]string{"--api-key", "abcdef123456"}, nil).Handler(c.Handler(slog.LevelWarn, nil))).Warn("bad key abcdef123456")
	// The console masks each line with its own redactor too.
	slog.New(c.Handler(slog.LevelWarn, redact.New([]string{"--api-key", "abcdef123456"}, nil))).Warn("again", "key", "abcdef123456")
	c.Close(time.Second)
	if b.String() != "cursor-wrap: warning: bad key [REDACTED]\ncursor-wrap: warning: again key=[REDACTED]\n" {
		t.Errorf("wrote %q", b.String())
	}
}

// blocked is a stderr nobody reads: its writes never return.
type blocked struct{}

func (blocked) Write(p []byte) (int, error) { select {} }

// TestConsoleBlockedStderr: with a stderr that takes nothing, the
// wrapper's messages never wait (they are dropped past the bound), the
// agent's stderr waits for room, and Close gives up after its wait.
func TestConsoleBlockedStderr(t *testing.T) {
	t.Parallel()
	w := blocked{}
	c := New(w, false, nil)
	log := slog.New(c.Handler(slog.LevelInfo, nil))
	start := time.Now()
	for range 10_000 {
		log.Info(strings.Repeat("m", 100))
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("10000 messages to a blocked stderr took %v", took)
	}
	agent := make(chan struct{})
	go func() {
		_, _ = c.Write(make([]byte, maxQueued)) // Fills what the messages left.
		_, _ = c.Write([]byte("more"))
		close(agent)
	}()
	select {
	case <-agent:
		t.Error("the agent's stderr did not wait for room")
	case <-time.After(100 * time.Millisecond):
	}
	start = time.Now()
	c.Close(200 * time.Millisecond)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v", took)
	}
	<-agent // Close releases the waiting writer.
}

// TestConsoleSharedStdout: on one terminal, the status line is erased
// before the agent's stdout is written, and not drawn while that output
// ends mid-line.
func TestConsoleSharedStdout(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := New(&b, true, func() int { return 80 })
	out := c.Stdout(&b, true)
	c.Status(text("cursor-wrap 1s | thinking"))
	settle(c)
	io.WriteString(out, `{"type":"thinking"}`)
	c.Status(text("cursor-wrap 2s | thinking"))
	settle(c)
	io.WriteString(out, "\n")
	c.Status(text("cursor-wrap 3s | thinking"))
	settle(c)
	c.Close(time.Second)
	want := "\rcursor-wrap 1s | thinking\x1b[K\r\x1b[K" + `{"type":"thinking"}` + "\n" + "\rcursor-wrap 3s | thinking\x1b[K"
	if b.String() != want {
		t.Errorf("terminal got\n%q\nwant\n%q", b.String(), want)
	}
	if c.Stdout(&b, false) != io.Writer(&b) {
		t.Error("a separate stdout must be left alone")
	}
}

// TestPrintable: what the agent wrote reaches the console with control
// characters and bidirectional controls shown as escapes, nothing else
// changed.
func TestPrintable(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text, é":            "plain text, é",
		"\x1b]0;title\x07":         `\x1b]0;title\a`,
		"evil\u202Etxt.exe":        `evil\u202etxt.exe`,
		"a\u2066b\u2069c\u200fd\n": `a\u2066b\u2069c\u200fd\n`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestConsoleHold checks the status line around a stop with the job: Hold
// erases it at once, none is drawn while held, and Release lets the next
// update draw it again.
func TestConsoleHold(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := New(&b, true, func() int { return 80 })
	c.Status(text("cursor-wrap 1s"))
	settle(c)
	c.Hold(time.Second)
	if want := "\rcursor-wrap 1s\x1b[K\r\x1b[K"; b.String() != want {
		t.Errorf("after Hold: %q, want %q", b.String(), want)
	}
	c.Status(text("cursor-wrap 2s"))
	settle(c)
	c.Release()
	c.Status(text("cursor-wrap 3s"))
	settle(c)
	c.Close(time.Second)
	if want := "\rcursor-wrap 1s\x1b[K\r\x1b[K\rcursor-wrap 3s\x1b[K"; b.String() != want {
		t.Errorf("console wrote %q, want %q", b.String(), want)
	}
}

// slowReader is a stderr read at a steady rate: each write takes as long
// as its bytes need at rate bytes a second.
type slowReader struct {
	mu   sync.Mutex
	b    bytes.Buffer
	rate int
}

func (s *slowReader) Write(p []byte) (int, error) {
	time.Sleep(time.Duration(len(p)) * time.Second / time.Duration(s.rate))
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestConsoleSlowReader: a stderr read slowly but steadily loses nothing,
// however long it takes past the stall: the agent's stderr in full, then
// the wrapper's last message, and Close says nothing was left unwritten.
func TestConsoleSlowReader(t *testing.T) {
	t.Parallel()
	r := &slowReader{rate: 70 << 10} // 200 KiB in about 3 s, a piece in 60 ms
	c := New(r, false, nil)
	agent := bytes.Repeat([]byte("0123456789abcdef"), 200<<10/16)
	c.Write(agent)
	c.Write([]byte("FATAL: the end\n"))
	slog.New(c.Handler(slog.LevelInfo, nil)).Info("session finished")
	start := time.Now()
	if n := c.Close(time.Second); n != 0 {
		t.Errorf("Close left %d bytes unwritten", n)
	}
	want := string(agent) + "FATAL: the end\ncursor-wrap: session finished\n"
	r.mu.Lock()
	got := r.b.String()
	r.mu.Unlock()
	if got != want {
		t.Errorf("stderr got %d bytes ending %q, want %d ending %q", len(got), got[max(len(got)-40, 0):], len(want), want[len(want)-40:])
	}
	if took := time.Since(start); took < 2*time.Second {
		t.Errorf("Close returned after %v: the reader was not slow", took)
	}
}

// gate is a stderr that takes nothing until it is opened.
type gate struct {
	open chan struct{}
	b    bytes.Buffer
	mu   sync.Mutex
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.b.Write(p)
}

// TestConsoleGivesUp: a stderr that takes nothing is given up on once it
// has taken nothing for the stall, and Close says how much it did not
// write: the agent's stderr and the wrapper's messages queued. The
// wrapper's messages have room of their own: the agent's stderr filling
// its share does not drop them.
func TestConsoleGivesUp(t *testing.T) {
	t.Parallel()
	g := &gate{open: make(chan struct{})}
	start := time.Now() // Before New: the stall may count from the console's start.
	c := New(g, false, nil)
	c.Write(make([]byte, 100))
	settleTaken(c)                       // The writer took it, and waits on the gate from now.
	c.Write(make([]byte, maxQueued-100)) // All the agent's room left.
	slog.New(c.Handler(slog.LevelInfo, nil)).Info("the summary")
	n := c.Close(time.Second)
	if took := time.Since(start); took < time.Second || took > 5*time.Second {
		t.Errorf("Close gave up %v after the writer took its work, want the stall", took)
	}
	if want := maxQueued + len("cursor-wrap: the summary\n"); n != want {
		t.Errorf("Close left %d bytes unwritten, want %d", n, want)
	}
	if n := c.Close(time.Hour); n != 0 {
		t.Errorf("a second Close: %d", n)
	}
	close(g.open)
}

// settleTaken waits until the writer has taken what is queued.
func settleTaken(c *Console) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.queue) > 0 {
		c.cond.Wait()
	}
}

// text is a status line as the wrapper hands it over: masked.
func text(s string) redact.Masked { return (*redact.Redactor)(nil).MaskString(s) }
