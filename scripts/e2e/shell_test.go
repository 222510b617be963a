package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
	"cursor-wrap/shellhook"
)

// shellFor finds a shell; a missing one skips the test, or fails it with
// REQUIRE_SHELLS=1 (set in CI, macOS included) or in CI on Linux.
func shellFor(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("REQUIRE_SHELLS") == "1" {
			t.Fatalf("%s is required (REQUIRE_SHELLS=1): %v", name, err)
		}
		testenv.SkipOutsideCI(t, "%s not installed: %v", name, err)
	}
	return p
}

// echoRC is the command that prints the last command's status in shell,
// as rc=N.
func echoRC(shell string) string {
	if shell == "fish" {
		return `echo "rc=$status"`
	}
	return `echo "rc=$?"`
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
line2"; ` + echoRC(sh)
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
			rc := echoRC(sh)
			// The same call through the function and straight to the
			// binary, from the same shell.
			out, _, logDir := inShell(t, sh, agentBin, []string{steps("args", "tty", "exit", "4")},
				"cursor-agent --version; "+rc+"; command cursor-agent --version; "+rc)
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

// TestDoctor runs doctor with a throwaway HOME for each of bash, zsh and
// fish, whose new shells (started by doctor as a terminal starts them, not
// inheriting doctor's PATH) see each startup file below; doctor must say
// what is wrong and the one fix that applies.
func TestDoctor(t *testing.T) {
	t.Parallel()
	wrapDir := filepath.Dir(wrapperBin)
	rcs := map[string]string{"bash": ".bashrc", "zsh": ".zshrc", "fish": ".config/fish/config.fish"}
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			shell := shellFor(t, sh)
			pathLine := "export PATH='" + wrapDir + "':$PATH\n"
			byName := `eval "$(cursor-wrap shell-init ` + sh + `)"` + "\n"
			if sh == "fish" {
				pathLine = "set -gx PATH '" + wrapDir + "' $PATH\n"
				byName = "cursor-wrap shell-init fish | source\n"
			}
			rc := "~/" + rcs[sh]
			newShell := "a new " + sh
			for _, c := range []struct {
				name string
				rc   string // HOME stands for the throwaway HOME
				code int
				want []string // LINE stands for the line doctor suggests
				not  []string
			}{
				{"nothing", "", 1, []string{
					"! " + newShell + " does not find cursor-wrap on PATH (/usr/local/",
					"\n    fix: add " + wrapDir + " to PATH in " + rc + ": ",
					"✗ cursor-agent in " + newShell + " does not go through the wrapper\n    fix: add `LINE` to " + rc + " (scripts/install.sh does it)\n",
				}, nil},
				// The installer's setup: a warning, not a failure.
				{"the line, not on PATH", "LINE\n", 0, []string{
					"! " + newShell + " does not find cursor-wrap on PATH (",
					"so typing cursor-wrap there needs its full path (" + wrapperBin + ")\n    fix: add " + wrapDir + " to PATH in " + rc + ": ",
					"✓ cursor-agent in " + newShell + " goes through the wrapper: " + wrapperBin + "\n",
				}, []string{"add `"}},
				{"a line by name, not on PATH", byName, 1, []string{
					"! " + newShell + " does not find cursor-wrap on PATH (",
					"✗ cursor-agent in " + newShell + " does not go through the wrapper: " + rc + ":1 runs cursor-wrap by name, and " + newShell + " does not find it on PATH\n" +
						"    fix: replace that line with `LINE` (it names the wrapper by its path), or add " + wrapDir + " to PATH",
				}, []string{"add `"}},
				{"a line naming a wrapper that is gone", "GONE\n", 1, []string{
					"✗ cursor-agent in " + newShell + " does not go through the wrapper, though " + rc + ":1 loads its functions: ",
					"    fix: the cursor-wrap that line names is gone or the line is not reached: replace it with `LINE`",
				}, []string{"add `"}},
				{"PATH and a line by name", pathLine + byName, 0, []string{
					"✓ " + newShell + " finds cursor-wrap: " + wrapperBin + "\n",
					"✓ cursor-agent in " + newShell + " goes through the wrapper: " + wrapperBin + "\n",
					"✓ cursor-agent in a new login " + sh + " (tmux, ssh, a console) goes through the wrapper too\n",
					"(fake-agent 1.2.3)",
				}, []string{"✗"}},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					home, bin := t.TempDir(), t.TempDir()
					os.Symlink(agentBin, filepath.Join(bin, "cursor-agent"))
					line := shellhook.InitLine(sh, wrapperBin, home)
					text := strings.NewReplacer("LINE", line, "GONE", shellhook.InitLine(sh, filepath.Join(home, "gone", "cursor-wrap"), home)).Replace(c.rc)
					if err := os.MkdirAll(filepath.Dir(filepath.Join(home, rcs[sh])), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(home, rcs[sh]), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
					// A login bash reads ~/.bashrc, as Debian's ~/.profile has
					// it: TestDoctorLoginBash checks one that does not.
					if err := os.WriteFile(filepath.Join(home, ".profile"), []byte(`. "$HOME/.bashrc"`+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					out, code := runDoctor(t, home, shell, bin)
					for _, want := range c.want {
						if want = strings.ReplaceAll(want, "LINE", line); !strings.Contains(out, want) {
							t.Errorf("want %q", want)
						}
					}
					for _, not := range c.not {
						if strings.Contains(out, not) {
							t.Errorf("do not want %q", not)
						}
					}
					if code != c.code || t.Failed() {
						t.Errorf("doctor exit %d (want %d), printed\n%s", code, c.code, out)
					}
				})
			}
		})
	}
}

// TestDoctorLoginBash: doctor checks a new login bash (tmux, ssh, a
// console) besides a new interactive one, and names the file it reads when
// that file neither sources ~/.bashrc nor has the line.
func TestDoctorLoginBash(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files map[string]string // LINE stands for the line, PLINE for ~/.profile's
		code  int
		want  string
	}{
		{"no login file", map[string]string{".bashrc": "LINE\n"}, 1,
			"✗ cursor-agent in a new login bash (tmux, ssh, a console) does not go through the wrapper: it reads ~/.bashrc only when ~/.bash_profile, ~/.bash_login or ~/.profile sources it, and there is none\n" +
				"    fix: create ~/.bash_profile with the line `LINE` (scripts/install.sh does it), or with `. ~/.bashrc`\n"},
		{".profile without ~/.bashrc", map[string]string{".bashrc": "LINE\n", ".profile": "export A=1\n"}, 1,
			"✗ cursor-agent in a new login bash (tmux, ssh, a console) does not go through the wrapper: it reads ~/.profile, not ~/.bashrc\n" +
				"    fix: add `PLINE` to ~/.profile (scripts/install.sh does it)\n"},
		{"the line in both", map[string]string{".bashrc": "LINE\n", ".profile": "export A=1\nPLINE\n"}, 0,
			"✓ cursor-agent in a new login bash (tmux, ssh, a console) goes through the wrapper too\n"},
		{".bash_profile sources ~/.bashrc", map[string]string{".bashrc": "LINE\n", ".bash_profile": ". ~/.bashrc\n", ".profile": "export A=1\n"}, 0,
			"✓ cursor-agent in a new login bash (tmux, ssh, a console) goes through the wrapper too\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home, bin := t.TempDir(), t.TempDir()
			os.Symlink(agentBin, filepath.Join(bin, "cursor-agent"))
			r := strings.NewReplacer("PLINE", shellhook.ProfileLine(wrapperBin, home), "LINE", shellhook.InitLine("bash", wrapperBin, home))
			for name, text := range c.files {
				if err := os.WriteFile(filepath.Join(home, name), []byte(r.Replace(text)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, code := runDoctor(t, home, shellFor(t, "bash"), bin)
			if want := r.Replace(c.want); code != c.code || !strings.Contains(out, want) ||
				!strings.Contains(out, "✓ cursor-agent in a new bash goes through the wrapper: "+wrapperBin+"\n") {
				t.Errorf("doctor exit %d (want %d), printed\n%s\nwant %q", code, c.code, out, want)
			}
		})
	}
}

// runDoctor runs doctor for shell with HOME home and PATH holding the
// wrapper and bin, as a user who typed its full path would. The agent
// answers --version with agentSteps, else with "fake-agent 1.2.3".
func runDoctor(t *testing.T, home, shell, bin string, agentSteps ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, wrapperBin, "doctor")
	env := slices.DeleteFunc(testEnv(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "ZDOTDIR" || k == "XDG_CONFIG_HOME" || k == "XDG_STATE_HOME" || k == "PATH"
	})
	if agentSteps == nil {
		agentSteps = []string{"line", "fake-agent 1.2.3"}
	}
	cmd.Env = append(env, "HOME="+home, "SHELL="+shell, "TERM=xterm", "PATH="+filepath.Dir(wrapperBin)+":"+bin+":/usr/bin:/bin",
		steps(agentSteps...))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestDoctorBrokenAgent: an agent that is found but cannot even say its
// version (a broken install) is a failure, with the way to see why.
func TestDoctorBrokenAgent(t *testing.T) {
	t.Parallel()
	home, bin := t.TempDir(), t.TempDir()
	os.Symlink(agentBin, filepath.Join(bin, "cursor-agent"))
	out, code := runDoctor(t, home, shellFor(t, "bash"), bin, "err", "env: 'node': No such file or directory", "exit", "127")
	want := "✗ agent: " + filepath.Join(bin, "cursor-agent") + " --version failed: env: 'node': No such file or directory (exit status 127)\n" +
		"    fix: run `" + filepath.Join(bin, "cursor-agent") + " --version` to see why"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("doctor exit %d, printed\n%s\nwant %q", code, out, want)
	}

	// What the agent prints reaches the terminal as words.Display shows it.
	out, _ = runDoctor(t, home, shellFor(t, "bash"), bin, "err", "\x1b]0;pwned\x07\x1b[2Jbroken", "exit", "1")
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "--version failed: ]0;pwned broken (exit status 1)") {
		t.Errorf("doctor printed the agent's escapes:\n%q", out)
	}
}
