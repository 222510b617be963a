package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDemoOnATerminal runs the demo as a user does, on a terminal: only
// the narration shows (no stream-json line, no fake-agent line), a kill
// names process groups and processes as such, and the logs it names are
// still there for inspect.
func TestDemoOnATerminal(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(wrapperBin, "demo")
	cmd.Env = testEnv()
	out := strings.ReplaceAll(string(terminalOutput(t, cmd)), "\r\n", "\n")
	for line := range strings.Lines(out) {
		if strings.HasPrefix(strings.TrimSpace(line), "{") {
			t.Errorf("a JSON line among the narration: %s", line)
		}
	}
	if strings.Contains(out, "negative") || !regexp.MustCompile(`sent SIGTERM to the process group \d+ and process \d+\n`).MatchString(out) {
		t.Errorf("the kills are not said as process groups and processes:\n%s", out)
	}
	logs := regexp.MustCompile(`(?m)^   Log: (/\S+\.jsonl)$`).FindAllStringSubmatch(out, -1)
	if len(logs) != 2 {
		t.Fatalf("want the two runs' logs named:\n%s", out)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(logs[0][1])) })
	for _, l := range logs {
		if r := runRaw(t, nil, "inspect", l[1]); r.code != 0 {
			t.Errorf("inspect %s, a log the demo named: exit %d: %s", l[1], r.code, r.stderr)
		}
	}
	if !strings.Contains(out, "cursor-wrap inspect --log-dir "+filepath.Dir(logs[0][1])+" --last-hang\n") {
		t.Errorf("the demo does not say how to inspect its logs:\n%s", out)
	}
}

// TestDemoIntoAFile: `cursor-wrap demo > stream.jsonl` keeps the stream
// the wrapper forwarded, and only that: every line is an event of the
// fake cursor-agent's sessions, none the fake agent's own report of the
// tool process it started.
func TestDemoIntoAFile(t *testing.T) {
	t.Parallel()
	r := runRaw(t, nil, "demo")
	if r.code != 0 {
		t.Fatalf("demo: exit %d: %s", r.code, r.stderr)
	}
	if logs := regexp.MustCompile(`(?m)^   Log: (/\S+\.jsonl)$`).FindSubmatch(r.stderr); logs != nil {
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(string(logs[1]))) })
	}
	events := map[string]bool{"system": true, "user": true, "assistant": true, "thinking": true, "tool_call": true, "result": true}
	n := 0
	for line := range bytes.Lines(r.stdout) {
		var ev struct{ Type string }
		if err := json.Unmarshal(line, &ev); err != nil || !events[ev.Type] {
			t.Errorf("not a cursor-agent event in the stream: %.200s", line)
		}
		n++
	}
	if n < 40 {
		t.Errorf("%d lines in the stream; want the two sessions' events", n)
	}
}

// TestDemoAgentKeepsAResumedSession: a hang restarted with --resume goes
// on in the same session, as cursor-agent's does, so `sessions` and
// `inspect` tell one session across the restart.
func TestDemoAgentKeepsAResumedSession(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_DATA_HOME=", "PATH=/usr/bin:/bin"}
	if r := runRaw(t, env, "demo", "--install-agent"); r.code != 0 {
		t.Fatalf("--install-agent: exit %d: %s", r.code, r.stderr)
	}
	r := runRaw(t, env, "--idle-timeout", "1s", "--restarts", "1", "--",
		"-p", "--output-format", "stream-json", "hang")
	if r.code != 0 {
		t.Fatalf("a hang restarted once: exit %d, want the restart's answer (0): %s", r.code, r.stderr)
	}
	var ids []string
	for line := range bytes.Lines(r.stdout) {
		var ev struct {
			Type, Subtype string
			SessionID     string `json:"session_id"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "system" && ev.Subtype == "init" {
			ids = append(ids, ev.SessionID)
		}
	}
	if len(ids) != 2 || ids[0] != ids[1] || !strings.HasPrefix(ids[0], "demo-") {
		t.Errorf("the attempts' sessions: %q; want one demo session resumed", ids)
	}
}
