//go:build linux

package fakeagent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The steps that give the wrapper evidence to judge (issue 32), checked
// for what they must look like from outside: their wire and their
// processes.

// The test binary is the fake agent its steps start.
func TestMain(m *testing.M) {
	if Is(os.Args[1:]) {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// script runs steps and returns what they printed.
func script(t *testing.T, steps ...string) string {
	t.Helper()
	var b bytes.Buffer
	a := &agent{out: bufio.NewWriter(&b), flush: true}
	for len(steps) > 0 {
		n, err := a.step(steps)
		if err != nil {
			t.Fatalf("%s: %v", steps[0], err)
		}
		steps = steps[n:]
	}
	a.out.Flush()
	return b.String()
}

// types decodes each printed line's type.
func types(t *testing.T, out string) []string {
	t.Helper()
	var ts []string
	for line := range strings.Lines(out) {
		var ev struct{ Type string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		ts = append(ts, ev.Type)
	}
	return ts
}

// TestConnect: cursor's shape on the wire, one HTTP/2 stream without TLS:
// a 20 KB request, then 16 B heartbeats every beat; the server's
// heartbeats are skipped and the rest is the answer, printed after the
// init once the stream ends.
func TestConnect(t *testing.T) {
	t.Parallel()
	const beat = 50 * time.Millisecond
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	got := make(chan []int, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 || r.Header.Get("Content-Type") != "application/connect+proto" {
			t.Errorf("request %s, %q", r.Proto, r.Header.Get("Content-Type"))
		}
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		var sizes []int
		for range 4 { // the request and 3 heartbeats
			var head [envelopeLen]byte
			if _, err := io.ReadFull(r.Body, head[:]); err != nil {
				t.Error(err)
				return
			}
			n := int(head[1])<<24 | int(head[2])<<16 | int(head[3])<<8 | int(head[4])
			io.CopyN(io.Discard, r.Body, int64(n))
			sizes = append(sizes, n)
		}
		got <- sizes
		for _, b := range [][]byte{Envelope(0, make([]byte, ServerBeat)), Envelope(0, []byte("hello, ")),
			Envelope(0, make([]byte, ServerBeat)), Envelope(0, []byte("world")), Envelope(endStream, []byte("{}"))} {
			w.Write(b)
		}
	}))
	srv.Config.Protocols = &p
	srv.Start()
	defer srv.Close()
	start := time.Now()
	out := script(t, "connect", srv.URL+"/agent.v1.AgentService/Run", beat.String())
	if sizes := <-got; fmt.Sprint(sizes) != fmt.Sprint([]int{requestSize, clientBeat, clientBeat, clientBeat}) {
		t.Errorf("messages of %v B, want the request then heartbeats", sizes)
	}
	if took := time.Since(start); took < 3*beat {
		t.Errorf("3 heartbeats in %v, want one every %v", took, beat)
	}
	if ts := types(t, out); fmt.Sprint(ts) != "[system assistant result]" || !strings.Contains(out, `"result":"hello, world"`) {
		t.Errorf("printed %s", out)
	}
}

// TestMessages: Claude's shape, a streamed Messages request of tens of KB
// offering the shell tool; pings are skipped, the deltas are the answer.
func TestMessages(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var q struct {
			Stream bool
			Tools  []struct{ Name string }
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &q); err != nil || !q.Stream || len(q.Tools) == 0 || q.Tools[0].Name != "Bash" || len(body) < 20<<10 {
			t.Errorf("request of %d B: %+v, %v", len(body), q, err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{`{"type":"message_start"}`, `{"type":"ping"}`, `{"type":"content_block_delta","delta":{"text":"Hello"}}`,
			`{"type":"content_block_delta","delta":{"text":" there."}}`, `{"type":"message_stop"}`} {
			var name struct{ Type string }
			json.Unmarshal([]byte(ev), &name)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name.Type, ev)
		}
	}))
	defer srv.Close()
	out := script(t, "messages", srv.URL+"/v1/messages")
	if ts := types(t, out); fmt.Sprint(ts) != "[system assistant result]" || !strings.Contains(out, `"result":"Hello there."`) {
		t.Errorf("printed %s", out)
	}
}

// stat reads a process's parent, group and session.
func stat(t *testing.T, pid int) (ppid, pgid, sid int) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ppid, _ = strconv.Atoi(f[1])
	pgid, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return ppid, pgid, sid
}

func printedPid(t *testing.T, out string) int {
	t.Helper()
	var ev struct{ Pid int }
	if err := json.Unmarshal([]byte(out), &ev); err != nil || ev.Pid == 0 {
		t.Fatalf("no pid in %q", out)
	}
	t.Cleanup(func() { syscall.Kill(ev.Pid, syscall.SIGKILL) })
	return ev.Pid
}

// TestOrphanBurner: the orphan is no child of the agent's, in a session
// of its own, and burns CPU.
func TestOrphanBurner(t *testing.T) {
	t.Parallel()
	pid := printedPid(t, script(t, "orphan-burner"))
	ppid, _, sid := stat(t, pid)
	if ppid == os.Getpid() || sid == mustSid(t) {
		t.Errorf("the orphan's parent %d, session %d: not double-forked away from %d", ppid, sid, os.Getpid())
	}
	cpu := func() int {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		u, _ := strconv.Atoi(f[11])
		s, _ := strconv.Atoi(f[12])
		return u + s
	}
	before := cpu()
	for end := time.Now().Add(10 * time.Second); cpu() == before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the orphan uses no CPU")
		}
	}
}

func mustSid(t *testing.T) int {
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	return sid
}

// TestHelper: the helper is in the agent's process group and follows the
// feed on a connection of its own.
func TestHelper(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pid := printedPid(t, script(t, "helper", ln.Addr().String()))
	if _, pgid, _ := stat(t, pid); pgid != syscall.Getpgrp() {
		t.Errorf("the helper's group %d, not the agent's %d", pgid, syscall.Getpgrp())
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if line, err := bufio.NewReader(c).ReadString('\n'); line != "request\n" {
		t.Errorf("the helper sent %q, %v", line, err)
	}
}

// TestWork: the step prints nothing and waits for its tool to end.
func TestWork(t *testing.T) {
	t.Parallel()
	start := time.Now()
	if out := script(t, "work", "300ms"); out != "" {
		t.Errorf("printed %q", out)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("returned after %v, before its tool ended", took)
	}
}
