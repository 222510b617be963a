package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests of the model connection (issue 24): the fake agent talks to a
// loopback "model server" while it prints nothing, and the wrapper's own
// log says what it judged and when.

const (
	pingEvery   = 200 * time.Millisecond
	thoughtLine = `{"type":"result","subtype":"success","result":"thought it through","session_id":"s-1"}`
)

// modelServer serves each connection with serve until the test ends, and
// returns its address.
func modelServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go serve(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// thinks reads the request, pings for d (forever if 0), then answers and
// closes: a model that thinks, as Claude's API does with SSE pings.
func thinks(d time.Duration) func(net.Conn) {
	return func(c net.Conn) {
		defer c.Close()
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
			return
		}
		for end := time.Now().Add(d); d == 0 || time.Now().Before(end); {
			time.Sleep(pingEvery)
			if _, err := c.Write([]byte("ping\n")); err != nil {
				return
			}
		}
		c.Write([]byte(thoughtLine + "\n"))
	}
}

// silent reads whatever comes and never sends: a dead stream.
func silent(c net.Conn) { io.Copy(io.Discard, c) }

// acks answers each line with "ack": the server side of the agent's own
// keep-alives.
func acks(c net.Conn) {
	in := bufio.NewScanner(c)
	for in.Scan() {
		if _, err := c.Write([]byte("ack\n")); err != nil {
			return
		}
	}
}

// connRun runs the fake agent through the wrapper: its init line (the
// model has the prompt: a model call opens), then the net step with addr
// and how, then exit.
func connRun(t *testing.T, addr, how string, flags ...string) result {
	t.Helper()
	return connRunAfter(t, initLine, addr, how, flags...)
}

// connRunAfter is connRun with the line the agent prints before it talks.
func connRunAfter(t *testing.T, first, addr, how string, flags ...string) result {
	t.Helper()
	args := append([]string{"--restarts", "0"}, flags...)
	return runWrapper(t, []string{steps("line", first, "net", addr, how)}, nil, append(args, "--", "fix it")...)
}

// replyLine is the agent's reply, which closes its model call: what its
// connection does after it is no wait on the model.
const replyLine = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"session_id":"s-1"}`

// logRecords returns the session log's records named msg.
func logRecords(t *testing.T, dir, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range bytes.Lines(logText(t, dir)) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// hangSilence returns the silence the wrapper measured when it declared
// the hang, and the reason's activity evidence.
func hangSilence(t *testing.T, r result) (time.Duration, map[string]any) {
	t.Helper()
	h := firstRecord(t, r.logDir, "hang_detected")
	if h == nil {
		t.Fatalf("no hang detected: exit %d; stderr %s", r.code, r.stderr)
	}
	reason := h["reason"].(map[string]any)
	ev, _ := reason["activity"].(map[string]any)
	return time.Duration(reason["idle_silence_ms"].(float64)) * time.Millisecond, ev
}

// TestThinkingModelNotKilled (issue 24, case 1): a model that thinks past
// the idle timeout, its connection receiving only pings, is not stopped;
// the answer arrives, and the log names the connection that excused it.
func TestThinkingModelNotKilled(t *testing.T) {
	t.Parallel()
	addr := modelServer(t, thinks(5*time.Second))
	r := connRun(t, addr, "read", "--idle-timeout", "2s")
	if r.code != 0 || !bytes.Contains(r.stdout, []byte("thought it through")) || firstRecord(t, r.logDir, "hang_detected") != nil {
		t.Fatalf("exit %d after %v; stdout %s; stderr %s", r.code, r.took, r.stdout, r.stderr)
	}
	// One record for the one silence and connection, not one per sample.
	if ev := logRecords(t, r.logDir, "evidence"); len(ev) != 1 || ev[0]["connection"] != addr {
		t.Errorf("evidence records %v, want one, of the connection to %s", ev, addr)
	}
	// inspect says what earned the window, and why.
	out, err := exec.Command(wrapperBin, "inspect", "--last", "--log-dir", r.logDir).Output()
	if err != nil || !regexp.MustCompile(`note +\+[0-9.]+s evidence: keep-alives on the connection to `+regexp.QuoteMeta(addr)+`, the last [0-9]+ms before \(.*the model waited on for`).Match(out) {
		t.Errorf("inspect does not say what excused the think: %v\n%s", err, out)
	}
}

// TestPingsForeverStopAtMaxSilence: pings that never end are excused up
// to max_silence, not past it (max_keepalive_wait is longer), and the hang
// record says so.
func TestPingsForeverStopAtMaxSilence(t *testing.T) {
	t.Parallel()
	addr := modelServer(t, thinks(0))
	r := connRun(t, addr, "read", "--idle-timeout", "2s", "--max-silence", "6s")
	silence, ev := hangSilence(t, r)
	// The hang falls at max_silence, a timer's lateness after at most.
	if silence < 6*time.Second || silence > 9*time.Second || r.code != 124 {
		t.Errorf("hung after %v of silence, exit %d, want at max_silence (6s), 124", silence, r.code)
	}
	if ev == nil || ev["connection"] != addr || !bytes.Contains(r.stderr, []byte("the connection to "+addr+" received data")) {
		t.Errorf("the evidence is not said: %v; stderr %s", ev, r.stderr)
	}
}

// TestNoConnectionEvidence: what is not the model at work excuses
// nothing, and the agent is stopped at the idle timeout: a dead stream
// (case 2, a regression test), data the agent never reads, and keep-alive
// ping-pong, whichever side pings, on a connection after the model's
// reply closed its call (an idle pooled connection).
//
// The ping-pong cases ran with the model call open until issue 32, as
// the look of an idle connection whatever the stream said: that was the
// rule that killed Codex thinking on its WebSocket (it pongs each ping in
// the same millisecond). With the call open they are now a live peer
// (TestKeepAlivesWhileTheModelThinks).
func TestNoConnectionEvidence(t *testing.T) {
	t.Parallel()
	pings := thinks(0)
	for _, tc := range []struct {
		name  string
		first string
		serve func(net.Conn)
		how   string
	}{
		{"dead stream", initLine, silent, "read"},
		{"data the agent never reads", initLine, pings, "unread"},
		{"no model call open, the server pings, the agent answers", replyLine, pings, "answer"},
		{"no model call open, the agent pings, the server acks", replyLine, acks, "keepalive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := connRunAfter(t, tc.first, modelServer(t, tc.serve), tc.how, "--idle-timeout", "2s", "--max-silence", "30s")
			silence, _ := hangSilence(t, r)
			// Judged at the idle timeout; an excused window would add a
			// second at least, a connection's excuse two.
			if silence < 2*time.Second || silence > 3500*time.Millisecond || r.code != 124 {
				t.Errorf("hung after %v of silence, exit %d, want at the idle timeout (2s), 124", silence, r.code)
			}
			if ev := logRecords(t, r.logDir, "evidence"); len(ev) > 0 {
				t.Errorf("excused by %v", ev)
			}
		})
	}
}

// TestKeepAlivesWhileTheModelThinks: while the model call is open, a live
// peer's keep-alives excuse the silence whichever side sends them and
// however fast the other answers (Codex pongs each WebSocket ping in the
// same millisecond; cursor-agent sends its own heartbeats), up to
// max_keepalive_wait: they cannot tell a thinking model from a parked
// turn.
func TestKeepAlivesWhileTheModelThinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		serve func(net.Conn)
		how   string
	}{
		{"the server pings, the agent answers at once", thinks(0), "answer"},
		{"the agent pings, the server acks", acks, "keepalive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := modelServer(t, tc.serve)
			r := connRun(t, addr, tc.how, "--idle-timeout", "2s", "--max-keepalive-wait", "6s")
			silence, _ := hangSilence(t, r)
			if silence < 6*time.Second || silence > 9*time.Second || r.code != 124 {
				t.Errorf("hung after %v of silence, exit %d, want at max_keepalive_wait (6s), 124", silence, r.code)
			}
			if ev := logRecords(t, r.logDir, "evidence"); len(ev) != 1 || ev[0]["earned"] != "keep-alives" || ev[0]["connection"] != addr {
				t.Errorf("evidence records %v, want one: keep-alives on the connection to %s", ev, addr)
			}
		})
	}
}

// TestTextModeWorkNotCapped (case 6): in text mode the agent prints
// nothing until it ends; while it works its silence is not capped by
// max_silence. (The work is a tool's, in a session of its own: what the
// agent reads itself is not work, and a starved CPU burner on a loaded
// machine can fall under the CPU floor, which TestConnTextModeWork
// covers with a fake clock.)
func TestTextModeWorkNotCapped(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{"CURSOR_WRAP_SHELL_FUNC=cursor-agent"}, nil, "--alias", "--idle-timeout", "2s", "--max-silence", "3s",
		"--", "-p", "--output-format", "text", "work", "8s", "line", "All done.")
	if r.code != 0 || firstRecord(t, r.logDir, "hang_detected") != nil || !bytes.Contains(r.stdout, []byte("All done.")) {
		t.Errorf("exit %d after %v; stderr %s", r.code, r.took, r.stderr)
	}
}

// TestConnectionEvidenceUnprivileged: people run the wrapper as
// themselves, and CI runs as root: as root, the thinking model is run
// again by an unprivileged user (nobody), and its connection must still
// be read. Run as anyone else, the test is that run already.
func TestConnectionEvidenceUnprivileged(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		TestThinkingModelNotKilled(t)
		return
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("no unprivileged user to run as: %v", err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	// The built binaries and a HOME and log dir nobody may use.
	dir, err := os.MkdirTemp("", "cursor-wrap-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			os.RemoveAll(dir)
		}
	})
	for _, bin := range []string{wrapperBin, agentBin} {
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(bin)), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home, logDir := filepath.Join(dir, "home"), filepath.Join(dir, "logs")
	for _, d := range []string{dir, home, logDir} {
		os.MkdirAll(d, 0o777)
		os.Chmod(d, 0o777)
	}
	addr := modelServer(t, thinks(5*time.Second))
	bin := filepath.Join(dir, filepath.Base(wrapperBin))
	r := execWrapper(t, func(cmd *exec.Cmd) {
		cmd.Path, cmd.Args[0], cmd.Dir = bin, bin, dir
		cmd.Env = append(cmd.Env, "HOME="+home, "TMPDIR="+dir, steps("line", initLine, "net", addr, "read"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}, "--agent-bin", filepath.Join(dir, filepath.Base(agentBin)), "--log-dir", logDir, "--restarts", "0", "--idle-timeout", "2s", "--", "fix it")
	if r.code != 0 || !bytes.Contains(r.stdout, []byte("thought it through")) {
		t.Fatalf("as nobody: exit %d after %v; stdout %s; stderr %s", r.code, r.took, r.stdout, r.stderr)
	}
	// A log dir shared with others gets a folder per user.
	dirs, _ := filepath.Glob(filepath.Join(logDir, "cursor-wrap-"+nobody.Uid))
	if len(dirs) != 1 {
		t.Fatalf("no log folder of nobody's in %s", logDir)
	}
	if ev := firstRecord(t, dirs[0], "evidence"); ev == nil || !strings.HasPrefix(ev["connection"].(string), "127.0.0.1:") {
		t.Errorf("as nobody, the connection was not read: %v", ev)
	}
}
