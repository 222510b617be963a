package e2e

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 32's binary tests of whose evidence counts: an orphan's CPU and a
// helper's connection are not the agent's, and the idle timeout decides.

// orphanRun runs a hung agent that left a busy orphan behind, in
// stream-json mode or, through the shell functions, in text mode; the
// orphan is killed when the test ends, whatever the wrapper did.
func orphanRun(t *testing.T, text bool, idle time.Duration) result {
	t.Helper()
	args := []string{"--restarts", "0", "--idle-timeout", idle.String(), "--max-silence", "30s", "--hard-timeout", "40s", "--"}
	var env []string
	if text {
		env = []string{"CURSOR_WRAP_SHELL_FUNC=cursor-agent"}
		args = append([]string{"--alias"}, append(args, "-p", "--output-format", "text", "orphan-burner", "hang")...)
	} else {
		env = []string{steps("line", initLine, "orphan-burner", "hang")}
		args = append(args, "fix it")
	}
	r := runWrapper(t, env, nil, args...)
	pid := childOf(t, r.stdout)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if alive(pid) {
		t.Errorf("the orphan (pid %d) outlived the run", pid)
	}
	return r
}

// TestOrphanCPUExcusesNothing (issue 32, case 4): a hung agent that left a
// busy orphan behind (double-forked into a session of its own, as a dev
// server's file watcher) is stopped at the idle timeout: the orphan's CPU
// is not the agent's work. In text mode too, where nothing else would
// ever stop it.
func TestOrphanCPUExcusesNothing(t *testing.T) {
	t.Parallel()
	for _, text := range []bool{false, true} {
		t.Run(map[bool]string{false: "stream-json", true: "text"}[text], func(t *testing.T) {
			t.Parallel()
			idle := 2 * time.Second
			r := orphanRun(t, text, idle)
			silence, _ := hangSilence(t, r)
			if silence < idle || silence > idle+1500*time.Millisecond || r.code != 124 {
				t.Errorf("hung after %v of silence, exit %d, want at the idle timeout (%v), 124", silence, r.code, idle)
			}
		})
	}
}

// feed writes a line of news every 100 ms to each connection, after its
// request, until the test ends: what an MCP server may follow.
func feed(c net.Conn) {
	defer c.Close()
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
		return
	}
	for i := 0; ; i++ {
		time.Sleep(100 * time.Millisecond)
		if _, err := fmt.Fprintf(c, `{"seq":%d,"news":%q}`+"\n", i, strings.Repeat("n", 200)); err != nil {
			return
		}
	}
}

// TestHelperConnectionExcusesNothing (issue 32, case 5): a process in the
// agent's group that is not its model client (an MCP server following a
// feed on its own connection) does not keep a hung agent alive: the idle
// timeout decides.
func TestHelperConnectionExcusesNothing(t *testing.T) {
	t.Parallel()
	addr := modelServer(t, feed)
	r := runWrapper(t, []string{steps("line", initLine, "helper", addr, "hang")}, nil,
		"--restarts", "0", "--idle-timeout", "2s", "--max-silence", "30s", "--", "fix it")
	silence, _ := hangSilence(t, r)
	if silence < 2*time.Second || silence > 3500*time.Millisecond || r.code != 124 {
		t.Errorf("hung after %v of silence, exit %d, want at the idle timeout (2s), 124", silence, r.code)
	}
	if pid := childOf(t, r.stdout); alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the helper (pid %d) outlived the run", pid)
	}
}
