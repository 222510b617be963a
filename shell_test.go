package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shellFor finds a shell, skipping when it is missing unless REQUIRE_SHELLS=1.
func shellFor(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("REQUIRE_SHELLS") == "1" {
			t.Fatalf("%s is required (REQUIRE_SHELLS=1): %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// inShell runs program in shell after loading the shell-init functions,
// with PATH holding the wrapper and, as cursor-agent, target.
func inShell(t *testing.T, shell, target string, env []string, program string) (stdout, stderr []byte, logDir string) {
	t.Helper()
	bin := t.TempDir()
	if target != "" {
		if err := os.Symlink(target, filepath.Join(bin, "cursor-agent")); err != nil {
			t.Fatal(err)
		}
	}
	logDir = t.TempDir()
	load := `eval "$(cursor-wrap shell-init ` + shell + `)"` + "\n"
	args := []string{"--norc", "--noprofile", "-c"}
	switch shell {
	case "zsh":
		args = []string{"-f", "-c"}
	case "fish":
		load = "cursor-wrap shell-init fish | source\n"
		args = []string{"--no-config", "-c"}
	}
	cmd := exec.Command(shellFor(t, shell), append(args, load+program)...)
	cmd.Env = append(testEnv(), "PATH="+filepath.Dir(wrapperBin)+":"+bin+":/usr/bin:/bin", "CURSOR_WRAP_LOG_DIR="+logDir)
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstderr: %s", shell, err, errb.String())
	}
	return out.Bytes(), errb.Bytes(), logDir
}

var shells = []string{"bash", "zsh", "fish"}

// TestShellFunctionsWatch checks that `cursor-agent -p --output-format
// stream-json …` typed in each shell runs through the wrapper: the agent
// gets exactly the arguments typed, its exit status comes back, and a
// session log proves the wrapper watched it.
func TestShellFunctionsWatch(t *testing.T) {
	t.Parallel()
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			call := `cursor-agent -p --output-format stream-json "a b" "" "*" '$HOME' "line1
line2"; echo "rc=$?"`
			if sh == "fish" {
				call = strings.Replace(call, `rc=$?`, `rc=$status`, 1)
			}
			out, _, logDir := inShell(t, sh, agentBin, []string{steps("args", "tty", "line", resultLine, "exit", "3")}, call)
			lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
			var got struct{ Argv []string }
			json.Unmarshal(lines[0], &got)
			want := []string{"-p", "--output-format", "stream-json", "a b", "", "*", "$HOME", "line1\nline2"}
			if strings.Join(got.Argv, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("agent argv %q, want %q", got.Argv, want)
			}
			if !bytes.Contains(lines[1], []byte(`"stdout":true`)) {
				t.Errorf("agent not under the PTY: %s", lines[1])
			}
			if string(lines[len(lines)-1]) != "rc=3" {
				t.Errorf("status: %s", lines[len(lines)-1])
			}
			if logs, _ := filepath.Glob(filepath.Join(logDir, "cursor-wrap-*-s-1.jsonl")); len(logs) != 1 {
				t.Errorf("no session log: the wrapper did not watch the run")
			}
		})
	}
}

// TestShellFunctionsPassThrough checks that a run that is not headless
// (here --version) goes to the real agent in place: same output, same
// status, the caller's stdout (not a PTY), no log.
func TestShellFunctionsPassThrough(t *testing.T) {
	t.Parallel()
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			status := "$?"
			if sh == "fish" {
				status = "$status"
			}
			// The same call through the function and straight to the
			// binary, from the same shell.
			out, _, logDir := inShell(t, sh, agentBin, []string{steps("args", "tty", "exit", "4")},
				`cursor-agent --version; echo "rc=`+status+`"; command cursor-agent --version; echo "rc=`+status+`"`)
			runs := strings.SplitAfter(string(out), "rc=4\n")
			if len(runs) != 3 || runs[2] != "" {
				t.Fatalf("output %q", out)
			}
			// The pids differ; everything else must not.
			strip := func(run string) string {
				var parts []string
				for line := range strings.Lines(run) {
					var m map[string]any
					if json.Unmarshal([]byte(line), &m) != nil {
						parts = append(parts, line)
						continue
					}
					delete(m, "pid")
					delete(m, "pgid")
					j, _ := json.Marshal(m)
					parts = append(parts, string(j))
				}
				return strings.Join(parts, "\n")
			}
			if strip(runs[0]) != strip(runs[1]) || !strings.Contains(runs[0], `"stdout":false`) {
				t.Errorf("through the function:\n%s\ndirect:\n%s", runs[0], runs[1])
			}
			if logs, _ := filepath.Glob(filepath.Join(logDir, "*")); len(logs) != 0 {
				t.Errorf("a pass-through run left logs: %v", logs)
			}
		})
	}
}

// TestShellWrapperOnly puts only the wrapper on PATH as cursor-agent: the
// wrapper must refuse to run itself, at once, with exit 127.
func TestShellWrapperOnly(t *testing.T) {
	t.Parallel()
	out, _, _ := inShell(t, "bash", wrapperBin, nil, `cursor-agent -p --output-format stream-json hi 2>&1; echo "rc=$?"`)
	if !bytes.HasSuffix(out, []byte("rc=127\n")) || !bytes.Contains(out, []byte("agent_bin")) {
		t.Errorf("output %s", out)
	}
}

// TestAliasTextFormat checks byte watching: -p with a text format has no
// events to read, but a silent agent is still killed at the idle timeout.
func TestAliasTextFormat(t *testing.T) {
	t.Parallel()
	out, stderr, _ := inShell(t, "bash", agentBin, []string{steps("line", "Thinking about it…", "hang"), "CURSOR_WRAP_IDLE_TIMEOUT=800ms"},
		`cursor-agent -p --output-format text "hello"; echo "rc=$?"`)
	if string(out) != "Thinking about it…\nrc=124\n" || !bytes.Contains(stderr, []byte("hang detected")) {
		t.Errorf("stdout %q stderr %s", out, stderr)
	}
}

// TestDoctor runs doctor with a temporary HOME: with the shell hook in
// .bashrc and an agent on PATH every check holds; without the hook, that
// check fails with its fix and the exit status is 1.
func TestDoctor(t *testing.T) {
	t.Parallel()
	shellFor(t, "bash")
	home, bin := t.TempDir(), t.TempDir()
	os.Symlink(agentBin, filepath.Join(bin, "cursor-agent"))
	doctor := func() (string, int) {
		cmd := exec.Command(wrapperBin, "doctor", "--shell", "bash")
		cmd.Env = append(testEnv(), "HOME="+home, "PATH="+filepath.Dir(wrapperBin)+":"+bin+":/usr/bin:/bin", steps("line", "fake-agent 1.2.3"))
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	out, code := doctor()
	if code != 1 || !strings.Contains(out, "✗ cursor-agent in bash goes through the wrapper\n    fix: add `eval \"$(cursor-wrap shell-init bash)\"`") {
		t.Errorf("without the hook: exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte(`eval "$(cursor-wrap shell-init bash)"`+"\n"), 0o644)
	out, code = doctor()
	if code != 0 || strings.Contains(out, "✗") || !strings.Contains(out, "(fake-agent 1.2.3)") || strings.Count(out, "✓") != 6 {
		t.Errorf("with the hook: exit %d\n%s", code, out)
	}
}

func TestShellInitUsage(t *testing.T) {
	t.Parallel()
	for want, args := range map[string][]string{
		"usage: cursor-wrap shell-init bash|zsh|fish":             {"shell-init"},
		`unknown shell "tcsh"; supported shells: bash, zsh, fish`: {"shell-init", "tcsh"},
		`unknown agent "aider"; known agents: cursor,`:            {"shell-init", "bash", "--agents", "cursor,aider"},
	} {
		cmd := exec.Command(wrapperBin, args...)
		cmd.Env = testEnv()
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !bytes.Contains(out, []byte(want)) {
			t.Errorf("%q: %v %s", args, err, out)
		}
	}
}
