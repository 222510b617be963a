package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/job"
)

// TestSessionsCommand lists a log dir holding a session of each outcome a
// user meets: ok, failed, hung, interrupted, a wrapper SIGKILLed, and one
// still running in another process.
func TestSessionsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	initOf := func(id string) string { return `{"type":"system","subtype":"init","session_id":"` + id + `"}` }
	run := func(want int, id string, args []string, s ...string) {
		t.Helper()
		r := runWrapper(t, []string{steps(s...)}, nil, append(append([]string{"--log-dir", dir}, args...), "--", "-p", id+" prompt")...)
		if r.code != want {
			t.Fatalf("%s: exit %d, want %d: %s", id, r.code, want, r.stderr)
		}
	}
	run(0, "s-ok", nil, "line", initOf("s-ok"), "line", resultLine)
	run(3, "s-fail", nil, "line", initOf("s-fail"), "exit", "3")
	run(124, "s-hang", []string{"--idle-timeout", "2s"}, "line", initOf("s-hang"), "hang")
	// Started in the background, each until its log is named after its
	// session; the agent's pid is in the log.
	start := func(id string) (*exec.Cmd, int) {
		t.Helper()
		cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", dir, "--", "-p", id+" prompt")
		cmd.Env = append(testEnv(), steps("line", initOf(id), "hang"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if logs, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*-"+id+".jsonl")); len(logs) == 1 {
				if pid := agentPidIn(t, logs[0]); pid > 0 {
					return cmd, pid
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no session log with the agent's pid in 10s", id)
			}
		}
	}
	interrupted, _ := start("s-int")
	interrupted.Process.Signal(syscall.SIGINT)
	interrupted.Wait()
	killed, agent := start("s-kill")
	killed.Process.Kill()
	killed.Wait()
	// The agent dies with its wrapper (its parent-death signal).
	for deadline := time.Now().Add(5 * time.Second); alive(agent); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("agent %d outlived its killed wrapper", agent)
		}
	}
	start("s-run")

	sessions := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(wrapperBin, append([]string{"sessions", "--log-dir", dir}, args...)...)
		cmd.Env = testEnv()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sessions %q: %v", args, err)
		}
		return out
	}
	lines := strings.Split(strings.TrimSuffix(string(sessions()), "\n"), "\n")
	want := []string{
		`START +TOOK +AGENT +OUTCOME +EXIT +USAGE +SESSION +PROMPT`,
		`running +- +not reported +s-run +s-run prompt`,
		`unfinished +- +not reported +s-kill +s-kill prompt`,
		`interrupted +130 +not reported +s-int +s-int prompt`,
		`hung \(idle\) +124 +not reported +s-hang +s-hang prompt`,
		`failed \(status 3\) +3 +not reported +s-fail +s-fail prompt`,
		`ok +0 +not reported +s-ok +s-ok prompt`,
	}
	if len(lines) != len(want) {
		t.Fatalf("sessions:\n%s", strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if i > 0 {
			w = `^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +[0-9.]+m?s +cursor +` + w + `$`
		}
		if !regexp.MustCompile(w).MatchString(lines[i]) {
			t.Errorf("line %d: %q, want %s", i, lines[i], w)
		}
	}

	var list []job.Session
	if err := json.Unmarshal(sessions("--json", "--hung"), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "s-hang" || list[0].Agent != "cursor" || list[0].Prompt != "s-hang prompt" ||
		list[0].Outcome != "hung (idle)" || *list[0].ExitStatus != 124 || !list[0].Hung || list[0].DurationMS < 300 {
		t.Errorf("--json --hung: %+v", list)
	}
	cmd := exec.Command(wrapperBin, "inspect", "--last-hang", "--log-dir", dir)
	cmd.Env = testEnv()
	if out, err := cmd.Output(); err != nil || !bytes.HasPrefix(out, []byte("prompt   s-hang prompt\nsession  s-hang  (cursor)\n")) {
		t.Errorf("inspect --last-hang: %v\n%s", err, out)
	}
}

// agentPidIn reads the agent's pid from a session log's start record, 0
// until both it and the agent's init event are on disk (records reach the
// file after the log is named: a wrapper killed before would leave a log
// without its session id).
func agentPidIn(t *testing.T, path string) int {
	data, _ := os.ReadFile(path)
	pid, initSeen := 0, false
	for line := range bytes.Lines(data) {
		var r struct {
			Msg     string
			Pid     int
			Subtype string
		}
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		switch {
		case r.Msg == "start":
			pid = r.Pid
		case r.Msg == "event" && r.Subtype == "init":
			initSeen = true
		}
	}
	if !initSeen {
		return 0
	}
	return pid
}
