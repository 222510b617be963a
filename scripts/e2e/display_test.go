package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestHostileLogNeverReachesTheTerminal: a log holds whatever the agent
// wrote. inspect's header (session id, model, cwd), its tool-call table and
// sessions' list show it only as words.Display does: no escape sequence (a
// title, a screen clear, a clipboard write) and no control character
// reaches the terminal. The timeline rows were escaped already; the header
// and the table printed them raw.
func TestHostileLogNeverReachesTheTerminal(t *testing.T) {
	t.Parallel()
	const osc52, title, clear = "\x1b]52;c;ZXZpbA==\x07", "\x1b]0;pwned\x07", "\x1b[2J"
	init, _ := json.Marshal(map[string]any{"type": "system", "subtype": "init", "session_id": "s-1" + title,
		"model": "m" + clear, "cwd": "/work" + osc52})
	result, _ := json.Marshal(map[string]any{"type": "result", "subtype": "success", "session_id": "s-1" + title, "result": "done" + osc52})
	agent := steps("line", string(init), "line", toolCallLine("c1\x1b[31m", "rm -rf /tmp/x"+osc52+clear, 1000),
		"line", toolEndLine("c1\x1b[31m"), "line", string(result))
	r := runWrapper(t, []string{agent}, nil, "--", "-p", "fix"+title)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"inspect", "--last"}, {"sessions"}} {
		out := runRaw(t, nil, append(args, "--log-dir", r.logDir)...)
		if out.code != 0 {
			t.Fatalf("%q: exit %d: %s", args, out.code, out.stderr)
		}
		if i := bytes.IndexFunc(out.stdout, func(c rune) bool { return c < ' ' && c != '\n' && c != '\t' || c == 0x7f }); i >= 0 {
			t.Errorf("%q printed a control character (%q) at byte %d:\n%q", args, out.stdout[i], i, out.stdout)
		}
		if !bytes.Contains(out.stdout, []byte("s-1")) {
			t.Errorf("%q does not show the session:\n%s", args, out.stdout)
		}
	}
}

// TestInspectOnATerminalKeepsItsColumns: on a terminal inspect makes a
// long gap bold; what it shows must line up as it does without the bold
// (the escapes were counted as the gap column's width).
func TestInspectOnATerminalKeepsItsColumns(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("line", initLine, "sleep", "50ms", "line", resultLine)}, nil, "--", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	args := []string{"inspect", "--last", "--gap", "1ms", "--log-dir", r.logDir}
	plain := runRaw(t, nil, args...)
	cmd := exec.Command(wrapperBin, args...)
	cmd.Env = testEnv()
	cmd.Stderr = io.Discard // stdout alone is compared with the plain run's
	bold := strings.ReplaceAll(string(terminalOutput(t, cmd)), "\r\n", "\n")
	if !strings.Contains(bold, "\x1b[1m") {
		t.Fatalf("no gap shown bold on a terminal:\n%q", bold)
	}
	if shown := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(bold, ""); shown != string(plain.stdout) {
		t.Errorf("on a terminal, without its escapes:\n%s\nwithout a terminal:\n%s", shown, plain.stdout)
	}
}
