package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// A new user's first day (issue 35): what they type before they know the
// wrapper, and what it must do then.

// TestBareOnATerminal: cursor-wrap with no agent arguments, typed at a
// terminal to see what it is, prints its usage on stderr and exits 2,
// with nothing started and no log written; with a prompt, or a stdin that
// is no terminal (the prompt piped in), the agent runs.
func TestBareOnATerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	agent := filepath.Join(dir, "cursor-agent")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	onTerminal := func(t *testing.T, logDir string, args ...string) result {
		t.Helper()
		ptm, pts, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptm.Close()
		defer pts.Close()
		return execWrapper(t, func(cmd *exec.Cmd) {
			cmd.Stdin = pts
			cmd.Env = append(cmd.Env, "CURSOR_WRAP_AGENT_BIN="+agent, "CURSOR_WRAP_LOG_DIR="+logDir)
		}, args...)
	}
	for _, args := range [][]string{nil, {"--"}, {"--idle-timeout", "5s"}, {"--status", "--"}} {
		logDir := t.TempDir()
		r := onTerminal(t, logDir, args...)
		if r.code != 2 || len(r.stdout) != 0 || !strings.HasPrefix(string(r.stderr), "cursor-wrap runs a headless coding agent") ||
			!strings.Contains(string(r.stderr), "cursor-wrap [flags] -- [agent args...]") {
			t.Errorf("cursor-wrap %q on a terminal: exit %d, stdout %q, stderr %s", args, r.code, r.stdout, r.stderr)
		}
		if entries, _ := os.ReadDir(logDir); len(entries) != 0 {
			t.Errorf("cursor-wrap %q on a terminal wrote %v in the log dir", args, entries)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("cursor-wrap %q on a terminal started the agent", args)
		}
	}
	if r := onTerminal(t, t.TempDir(), "--", "fix the test"); r.code != 1 { // Started: no result, so 1.
		t.Errorf("a prompt on a terminal: exit %d, stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("a prompt on a terminal did not start the agent: %v", err)
	}
	os.Remove(marker)
	r := execWrapper(t, func(cmd *exec.Cmd) {
		cmd.Stdin = strings.NewReader("fix the test")
		cmd.Env = append(cmd.Env, "CURSOR_WRAP_AGENT_BIN="+agent, "CURSOR_WRAP_LOG_DIR="+t.TempDir())
	})
	if _, err := os.Stat(marker); err != nil || r.code != 1 {
		t.Errorf("a prompt on stdin: exit %d (%v), stderr %s", r.code, err, r.stderr)
	}
}

// TestMCPWithoutAnAgent: with no agent installed, the MCP server still
// starts and answers initialize (an exit before the handshake shows a
// client only "Connection closed"); every call that would run an agent
// that is not installed is a tool error that names the install command.
func TestMCPWithoutAnAgent(t *testing.T) {
	t.Parallel()
	c := serveWith(t, nil, "PATH="+t.TempDir(), "HOME="+t.TempDir())
	if !strings.Contains(c.stderr.String(), "every call that runs the configured agent will fail until this is fixed: agent not found") {
		t.Errorf("the server's log does not say the agent is missing:\n%s", c.stderr)
	}
	for _, tc := range []struct {
		tool, agent, install string
	}{
		{"run_agent", "", "curl https://cursor.com/install -fsS | bash"},
		{"start_agent", "", "curl https://cursor.com/install -fsS | bash"},
		{"run_agent", "claude", "npm install -g @anthropic-ai/claude-code"},
		{"start_agent", "codex", "npm install -g @openai/codex"},
	} {
		args := map[string]any{"prompt": "fix the failing test"}
		if tc.agent != "" {
			args["agent"] = tc.agent
		}
		r := c.tool(tc.tool, "", args)
		if !r.IsError || r.str("code") != "ESTART" || !strings.Contains(r.text(), "install it with `"+tc.install+"`") {
			t.Errorf("%s %q: %+v", tc.tool, tc.agent, r)
		}
	}
	if r := c.tool("agent_sessions", "", map[string]any{}); r.IsError {
		t.Errorf("agent_sessions: %+v", r)
	}
}

// TestBrokenConfigAsTheREADMEShows: the README's promise that
// `cursor-agent -p … && deploy` behaves as before names the one more
// status a broken config brings, 125, with the lines it prints; a typo in
// the config file, typed through the shell function in bash, prints those
// lines (the fix and the bypass), runs no agent and no deploy.
func TestBrokenConfigAsTheREADMEShows(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "$ cursor-agent -p \"fix the failing test\" && deploy\n")
	block, _, _ = strings.Cut(block, "$ echo $?\n125\n")
	if !ok || !strings.Contains(block, "command cursor-agent …` runs the agent without the wrapper") {
		t.Fatalf("the README shows no broken config's lines, with the bypass, after its && deploy promise:\n%s", block)
	}
	home := t.TempDir()
	config := filepath.Join(home, ".config", "cursor-wrap", "config.toml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("# mine\nidle_timeout = \"2m\"\nidel_timeout = \"5s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, logDir := inShell(t, "bash", agentBin, []string{"HOME=" + home, "CURSOR_WRAP_CONFIG=" + config, steps("line", resultLine)},
		`cursor-agent -p "fix the failing test" && echo deployed; echo "rc=$?"`)
	if want := strings.ReplaceAll(block, "/home/me", home); string(stdout) != "rc=125\n" || string(stderr) != want {
		t.Errorf("stdout %q\nstderr:\n%s\nwant, as the README shows:\n%s", stdout, stderr, want)
	}
	if entries, _ := os.ReadDir(logDir); len(entries) != 0 {
		t.Errorf("the refused run wrote %v", entries)
	}
}
