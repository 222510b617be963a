package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/shellhook"
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
	// The server writes it before it answers initialize, but its stderr
	// reaches the buffer through exec's copying goroutine: wait for it.
	missing := "every call that runs the configured agent will fail until this is fixed: agent not found"
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(c.stderr.String(), missing); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("the server's log does not say the agent is missing:\n%s", c.stderr)
			break
		}
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

// homeTree lists every path under home with its mode and, for a file, its
// content: what a user would find changed.
func homeTree(t *testing.T, home string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(home, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, path)
		fmt.Fprintf(&b, "%s %v", rel, fi.Mode())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(path)
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDemoAgent: in a home with no cursor-agent, `cursor-wrap demo
// --install-agent` puts a demo agent behind cursor-agent that answers
// through the shell function (text and stream-json, with a tool call),
// hangs or asks when told, answers --version, passes doctor saying it is
// the demo, and is listed as the demo in sessions and report; a real
// cursor-agent on PATH, or agent_bin, wins over it; --remove-agent leaves
// the home exactly as it was, the user's config file untouched.
func TestDemoAgent(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\ncursor-wrap demo --install-agent ", "\ncursor-agent -p \"fix the failing test\"\n", "\ncursor-wrap demo --remove-agent "} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not show %q, which this test runs", want)
		}
	}
	home := t.TempDir()
	for path, text := range map[string]string{
		".local/bin/mine":                 "#!/bin/sh\n",
		".config/cursor-wrap/config.toml": "# mine\nkill_grace = \"2s\"\n",
		".bashrc":                         shellhook.InitLine("bash", wrapperBin, home) + "\n",
		".bash_profile":                   ". ~/.bashrc\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := homeTree(t, home)
	config := filepath.Join(home, ".config", "cursor-wrap", "config.toml")
	env := []string{"HOME=" + home, "CURSOR_WRAP_CONFIG=" + config, "XDG_DATA_HOME=", "PATH=" + filepath.Dir(wrapperBin) + ":/usr/bin:/bin"}
	demo := filepath.Join(home, ".local", "share", "cursor-wrap", "demo-agent", "cursor-agent")
	out, code := runDoctor(t, home, shellFor(t, "bash"), t.TempDir())
	if want := "    fix: install it as the line above says, or try the wrapper without it first: `cursor-wrap demo --install-agent`\n"; code != 1 || !strings.Contains(out, want) {
		t.Errorf("doctor with no agent: exit %d, printed\n%s\nwant %q", code, out, want)
	}
	r := runRaw(t, env, "demo", "--install-agent")
	if r.code != 0 || !strings.Contains(string(r.stdout), "installed the demo agent: ~/.local/share/cursor-wrap/demo-agent/cursor-agent\n") ||
		!strings.Contains(string(r.stdout), "demo --remove-agent") || strings.Contains(string(r.stdout), "\n!") {
		t.Fatalf("--install-agent: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	program := `cursor-agent --version; echo "rc=$?"
cursor-agent -p "fix the failing test"; echo "rc=$?"
cursor-agent -p --output-format stream-json "fix the failing test"; echo "rc=$?"
CURSOR_WRAP_IDLE_TIMEOUT=1s cursor-agent -p hang; echo "rc=$?"
cursor-agent -p ask; echo "rc=$?"`
	stdout, stderr, logDir := inShell(t, "bash", "", env, program)
	runs := strings.Split(string(stdout), "\n")
	for i, want := range []string{
		fakeagent.DemoVersion + "\nrc=0",
		"[demo] Done, and nothing was changed: this was cursor-wrap's demo agent, not Cursor's cursor-agent, answering \"fix the failing test\".",
		`{"type":"system","subtype":"init",`,
		`"model":"` + fakeagent.DemoModel + `"`,
		`{"type":"tool_call","subtype":"started","call_id":"demo_call_1","tool_call":{"shellToolCall":{"args":{"command":"echo 'a tool call of the demo agent'","timeout":30000}}}`,
		`{"type":"tool_call","subtype":"completed","call_id":"demo_call_1",`,
		`{"type":"result","subtype":"success","is_error":false,"result":"[demo] Done`,
		"rc=124\nrc=85\n",
	} {
		if !strings.Contains(string(stdout), want) {
			t.Errorf("want %q (step %d) in the shell's stdout:\n%s\nstderr:\n%s", want, i, stdout, stderr)
		}
	}
	if strings.Count(string(stdout), "rc=0\n") != 3 || len(runs) < 4 {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, want := range []string{"hang detected", `the agent is waiting on a person: it asked "[demo] Apply these changes? [y/N]"`} {
		if !strings.Contains(string(stderr), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	table, list := sessionsOf(t, logDir)
	if len(list) != 4 || strings.Count(string(table), " cursor (demo) ") != 4 {
		t.Errorf("sessions lists %d runs:\n%s", len(list), table)
	}
	for _, s := range list {
		if s.Agent != "cursor (demo)" || (s.ID != "" && !strings.HasPrefix(s.ID, "demo-")) {
			t.Errorf("sessions --json: %+v", s)
		}
	}
	if out := runRaw(t, env, "report", "--log-dir", logDir); !strings.Contains(string(out.stdout), "  cursor (demo)  4  ") {
		t.Errorf("report:\n%s%s", out.stdout, out.stderr)
	}
	out, code = runDoctor(t, home, shellFor(t, "bash"), t.TempDir())
	if want := "✓ agent: the demo agent, " + demo + " (" + fakeagent.DemoVersion + "): it stands in for cursor-agent"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("doctor exit %d, printed\n%s\nwant %q", code, out, want)
	}

	// A real cursor-agent, on PATH or in agent_bin, is run before the demo.
	bin := t.TempDir()
	if err := os.Symlink(agentBin, filepath.Join(bin, "cursor-agent")); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][]string{{"PATH=" + bin + ":/usr/bin:/bin"}, {"CURSOR_WRAP_AGENT_BIN=" + agentBin}} {
		r := runRaw(t, append(append(slices.Clone(env), e...), steps("line", "fake-agent 1.2.3")), "--alias", "--", "--version")
		if r.code != 0 || string(r.stdout) != "fake-agent 1.2.3\n" {
			t.Errorf("%s: cursor-agent --version ran %q (exit %d, %s)", e, r.stdout, r.code, r.stderr)
		}
	}

	r = runRaw(t, env, "demo", "--remove-agent")
	if r.code != 0 || !strings.Contains(string(r.stdout), "removed the demo agent ~/.local/share/cursor-wrap/demo-agent/cursor-agent\n") {
		t.Errorf("--remove-agent: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// doctor proved the log dir by making it, as a run would: not the demo's.
	if err := os.RemoveAll(filepath.Join(home, ".local", "state")); err != nil {
		t.Fatal(err)
	}
	if after := homeTree(t, home); after != before {
		t.Errorf("the home after --remove-agent:\n%s\nbefore --install-agent:\n%s", after, before)
	}
	if r := runRaw(t, env, "--alias", "--", "-p", "hi"); r.code != 127 || !strings.Contains(string(r.stderr), "install it with `curl https://cursor.com/install -fsS | bash`") {
		t.Errorf("after --remove-agent: exit %d, %s", r.code, r.stderr)
	}
}

// TestCompletionLinesAsDocumented: the completion lines docs/usage.md
// gives load the completions in a fresh bash and a fresh zsh (no compinit
// run), and say nothing once cursor-wrap is gone from PATH.
func TestCompletionLinesAsDocumented(t *testing.T) {
	t.Parallel()
	usage, err := os.ReadFile("docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ shell, check, want string }{
		{"bash", "complete -p cursor-wrap 2>/dev/null", "complete -o default -F _cursor_wrap cursor-wrap\n"},
		{"zsh", "print -r -- $_comps[cursor-wrap]", "_cursor_wrap\n"},
	} {
		line := "if command -v cursor-wrap >/dev/null; then eval \"$(cursor-wrap completion " + c.shell + ")\"; fi"
		if !strings.Contains(string(usage), line) {
			t.Errorf("docs/usage.md does not give %q", line)
		}
		for _, installed := range []bool{true, false} {
			home := t.TempDir()
			path := "/usr/bin:/bin"
			if installed {
				path = filepath.Dir(wrapperBin) + ":" + path
			}
			args := []string{"--norc", "--noprofile", "-c"}
			if c.shell == "zsh" {
				args = []string{"-f", "-c"}
			}
			cmd := exec.CommandContext(t.Context(), shellFor(t, c.shell), append(args, line+"\n"+c.check)...)
			cmd.Env = []string{"HOME=" + home, "ZDOTDIR=" + home, "PATH=" + path, "TERM=xterm"}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			want := c.want
			if !installed {
				want = map[string]string{"bash": "", "zsh": "\n"}[c.shell]
			}
			if string(out) != want || stderr.Len() != 0 || (installed && err != nil) {
				t.Errorf("%s, cursor-wrap on PATH %v: %q, %v, stderr %q; want %q", c.shell, installed, out, err, stderr.String(), want)
			}
		}
	}
}

// TestDoctorChecksTheShellItRunsIn: doctor typed in a zsh that does not
// export SHELL checks zsh, and says why; SHELL names another shell.
func TestDoctorChecksTheShellItRunsIn(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cmd := exec.CommandContext(t.Context(), shellFor(t, "zsh"), "-f", "-c", `"$0" doctor; exit $?`, wrapperBin)
	cmd.Env = []string{"HOME=" + home, "TERM=xterm", "PATH=/usr/bin:/bin", "SHELL=/bin/sh", "CURSOR_WRAP_CONFIG=/nonexistent/config.toml"}
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{"  (the shell checked: zsh, the shell that started this command)\n", "✗ cursor-agent in a new zsh does not go through the wrapper\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor printed\n%s\nwant %q", out, want)
		}
	}
}
