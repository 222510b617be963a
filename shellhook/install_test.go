package shellhook

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
)

const installMarker = " # added by cursor-wrap scripts/install.sh"

// goEnv keeps the Go caches of the real HOME: a temporary HOME would
// otherwise make install.sh rebuild the standard library every time.
var goEnv = sync.OnceValues(func() ([]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil, err
	}
	vals := strings.Fields(string(out))
	if len(vals) != 3 {
		return nil, errors.New("go env: want 3 values, got " + string(out))
	}
	return []string{"GOCACHE=" + vals[0], "GOMODCACHE=" + vals[1], "GOPATH=" + vals[2]}, nil
})

// installEnv is the test's environment with a temporary HOME and PREFIX and
// the given SHELL, and none of the variables that pick rc files.
func installEnv(t *testing.T, home, prefix, shell string, extra ...string) []string {
	t.Helper()
	genv, err := goEnv()
	if err != nil {
		testenv.SkipOutsideCI(t, "no usable go toolchain: %v", err)
	}
	drop := []string{"HOME", "BINDIR", "PREFIX", "SHELL", "ZDOTDIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "GOCACHE", "GOMODCACHE", "GOPATH"}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, name) || strings.HasPrefix(name, "CURSOR_WRAP_")
	})
	env = append(env, genv...)
	return append(env, append([]string{"HOME=" + home, "BINDIR=" + prefix, "SHELL=" + shell}, extra...)...)
}

// runInstall runs scripts/install.sh with args and returns what it printed
// and its exit status. INSTALL_TEST_BASH names another bash to run it with,
// such as a build of 3.2, macOS's. The script ignores SHELL: the shell
// that env's SHELL names is passed as --shell, since the test, which
// starts the script, is no shell (TestInstallPicksShell checks the choice).
func runInstall(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	for _, kv := range env {
		if sh, ok := strings.CutPrefix(kv, "SHELL="); ok && sh != "" {
			args = append([]string{"--shell", filepath.Base(sh)}, args...)
		}
	}
	// The script builds the three binaries: at load 20 on 2 cores that
	// once took past 2 minutes.
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	bash := cmp.Or(os.Getenv("INSTALL_TEST_BASH"), "bash")
	cmd := exec.CommandContext(ctx, bash, append([]string{filepath.Join("..", "scripts", "install.sh")}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("install.sh %q: %v\n%s", args, err, out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// install runs scripts/install.sh, which must succeed.
func install(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out, code := runInstall(t, env, args...)
	if code != 0 {
		t.Fatalf("install.sh %q: exit %d\n%s", args, code, out)
	}
	return out
}

func readOrEmpty(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// newShell runs program in an interactive shell that reads its startup
// files, as a new terminal's does, in a session of its own so it cannot take
// the test's terminal. It returns stdout and stderr, without the two lines
// bash prints when it has no terminal for job control.
func newShell(t *testing.T, shell string, env []string, program string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, shellPath(t, shell), "-i", "-c", program)
	cmd.Env = append(slices.Clone(env), "TERM=xterm") // Else fish warns.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s -i -c %q: %v\nstderr: %s", shell, program, err, errb.String())
	}
	var kept []string
	for line := range strings.Lines(errb.String()) {
		if !strings.Contains(line, "cannot set terminal process group") && !strings.Contains(line, "no job control in this shell") {
			kept = append(kept, line)
		}
	}
	return out.String(), strings.Join(kept, "")
}

// TestInstall installs into a PREFIX that is not on PATH, for the shell in
// $SHELL, and checks what a user would: what install.sh said, the line in
// the startup file, that a new shell's cursor-agent goes through the
// installed wrapper, that a second run changes nothing, that a wrapper moved
// away leaves new shells quiet and the real agent running, and that
// --uninstall takes back exactly what was added and says what it leaves.
func TestInstall(t *testing.T) {
	t.Parallel()
	_, realDir := fakeAgents(t)
	for _, c := range []struct {
		shell  string
		rc     string // relative to HOME
		extra  []string
		before string // the rc file's content before install; "" for none
		build  bool   // else the wrapper is built once for all, and installed with --no-build
	}{
		{"bash", ".bashrc", nil, "# mine\nalias x=y\n", true},
		{"zsh", "zdot/.zshrc", []string{"ZDOTDIR=HOME/zdot"}, "", false},
		{"fish", ".config/fish/config.fish", nil, "set x 1", false},
	} {
		t.Run(c.shell, func(t *testing.T) {
			t.Parallel()
			shell := shellPath(t, c.shell)
			home := t.TempDir()
			prefix := filepath.Join(home, ".local", "bin")
			rc := filepath.Join(home, c.rc)
			var extra []string
			for _, kv := range c.extra {
				extra = append(extra, strings.ReplaceAll(kv, "HOME", home))
			}
			env := installEnv(t, home, prefix, shell, extra...)
			shown := "~/" + c.rc
			if c.before != "" {
				// A symlinked rc file, as dotfile managers make, must stay one.
				target := filepath.Join(home, "dotfiles", "rc")
				mkdir(t, filepath.Dir(target))
				if err := os.WriteFile(target, []byte(c.before), 0o644); err != nil {
					t.Fatal(err)
				}
				symlink(t, target, rc)
			}
			line := InitLine(c.shell, filepath.Join(prefix, "cursor-wrap"), home)
			if !strings.Contains(line, `"$HOME/.local/bin/cursor-wrap"`) {
				t.Errorf("the line does not name the wrapper under $HOME: %s", line)
			}
			sep := ""
			if c.before != "" && !strings.HasSuffix(c.before, "\n") {
				sep = "\n"
			}
			lineNo := strings.Count(c.before+sep, "\n") + 1
			marker := installMarker
			if c.before == "" {
				marker += " (it created this file)"
			}

			// Linking takes seconds on a loaded machine: one case builds.
			var args []string
			wants := []string{
				"created " + prefix + "\n",
				"installed " + filepath.Join(prefix, "cursor-wrap") + "\n",
				"installed " + filepath.Join(prefix, "cursor-wrap-mcp") + "\n",
			}
			if !c.build {
				args = []string{"--no-build"}
				wants = []string{"kept " + filepath.Join(prefix, "cursor-wrap") + " (--no-build)\n"}
				mkdir(t, prefix)
				copyFile(t, builtWrapper(t), filepath.Join(prefix, "cursor-wrap"))
			}
			out := install(t, env, args...)
			for _, want := range append(wants,
				shown+": added line "+strconv.Itoa(lineNo)+": "+line+marker+"\n",
				prefix+" is not on PATH: the shell line names the wrapper by its full path",
				"check the installation with: "+filepath.Join(prefix, "cursor-wrap")+" doctor\n",
			) {
				if !strings.Contains(out, want) {
					t.Errorf("first run printed\n%s\nwant %q", out, want)
				}
			}
			if c.build {
				// The README shows what the script prints, its next step
				// among it, for a PREFIX not on PATH.
				readme, err := os.ReadFile("../README.md")
				if err != nil {
					t.Fatal(err)
				}
				for l := range strings.Lines(string(readme)) {
					if strings.HasPrefix(l, "/home/me/") || strings.HasPrefix(l, "open a new shell") {
						if want := strings.ReplaceAll(l, "/home/me", home); !strings.Contains(out, want) {
							t.Errorf("README.md shows the installer printing %q; it printed\n%s", want, out)
						}
					}
				}
			}
			wantRC := c.before + sep + line + marker + "\n"
			if got := readOrEmpty(t, rc); got != wantRC {
				t.Errorf("rc after install:\n%q\nwant\n%q", got, wantRC)
			}

			// A new shell, whose PATH has the real agent and not PREFIX.
			rec := t.TempDir()
			shellEnv := append(slices.Clone(env), "PATH="+realDir+":/usr/bin:/bin", recordEnv+"="+rec,
				"CURSOR_WRAP_LOG_DIR="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
			stdout, stderr := newShell(t, c.shell, shellEnv, "cursor-agent --version x")
			if stdout != "" || stderr != "" {
				t.Errorf("a new %s printed\nstdout: %s\nstderr: %s", c.shell, stdout, stderr)
			}
			checkRan(t, rec, "--version x", "1")

			if out := install(t, env, args...); !strings.Contains(out, shown+" already has the cursor-wrap line; not changed\n") ||
				strings.Contains(out, "added") || strings.Contains(out, "created") {
				t.Errorf("second run printed\n%s", out)
			}
			if got := readOrEmpty(t, rc); got != wantRC {
				t.Errorf("rc after second install:\n%q\nwant\n%q", got, wantRC)
			}

			// The wrapper moved away: new shells say nothing and the real
			// agent runs, unwatched.
			moved := filepath.Join(home, "moved")
			if err := os.Rename(filepath.Join(prefix, "cursor-wrap"), moved); err != nil {
				t.Fatal(err)
			}
			stdout, stderr = newShell(t, c.shell, shellEnv, "cursor-agent --version y")
			if stdout != "" || stderr != "" {
				t.Errorf("a new %s without the wrapper printed\nstdout: %s\nstderr: %s", c.shell, stdout, stderr)
			}
			checkRan(t, rec, "--version y", "")
			if err := os.Rename(moved, filepath.Join(prefix, "cursor-wrap")); err != nil {
				t.Fatal(err)
			}

			// A config file and logs, which --uninstall must leave and name.
			config := filepath.Join(home, ".config", "cursor-wrap", "config.toml")
			logs := filepath.Join(home, ".cursor-wrap", "logs")
			mkdir(t, filepath.Dir(config))
			mkdir(t, logs)
			for _, f := range []string{config, filepath.Join(logs, "cursor-wrap-1-a.jsonl"), filepath.Join(logs, "cursor-wrap-2-b.jsonl")} {
				if err := os.WriteFile(f, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// The demo agent, which runs the wrapper, goes with it.
			demo := exec.Command(filepath.Join(prefix, "cursor-wrap"), "demo", "--install-agent")
			demo.Env = env
			if b, err := demo.CombinedOutput(); err != nil {
				t.Fatalf("demo --install-agent: %v\n%s", err, b)
			}
			out = install(t, env, "--uninstall")
			if !strings.Contains(out, "removed the demo agent ~/.local/share/cursor-wrap/demo-agent/cursor-agent\n") {
				t.Errorf("uninstall printed\n%s\nwant the demo agent removed", out)
			}
			if _, err := os.Lstat(filepath.Join(home, ".local", "share", "cursor-wrap")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the demo agent's directories are left: %v", err)
			}
			mcpGone := "removed " + filepath.Join(prefix, "cursor-wrap-mcp") + "\n"
			if !c.build {
				mcpGone = filepath.Join(prefix, "cursor-wrap-mcp") + ": not there\n"
			}
			for _, want := range []string{
				"removed " + filepath.Join(prefix, "cursor-wrap") + "\n",
				mcpGone,
				shown + ": removed line " + strconv.Itoa(lineNo) + ": " + line + marker + "\n",
				"~/.config/cursor-wrap/config.toml, your settings: rm '" + config + "'\n",
				"~/.cursor-wrap/logs, 2 session logs, which hold your prompts and the agents' output: rm -r '" + logs + "'\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("uninstall printed\n%s\nwant %q", out, want)
				}
			}
			if _, err := os.Lstat(filepath.Join(prefix, "cursor-wrap")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("binary still there after uninstall: %v", err)
			}
			if _, err := os.Stat(config); err != nil {
				t.Errorf("uninstall removed the config file: %v", err)
			}
			if got := readOrEmpty(t, rc); got != c.before+sep {
				t.Errorf("rc after uninstall:\n%q\nwant\n%q", got, c.before+sep)
			}
			if c.before != "" {
				if fi, err := os.Lstat(rc); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("rc symlink replaced: %v", err)
				}
			} else if _, err := os.Lstat(rc); !errors.Is(err, os.ErrNotExist) || !strings.Contains(out, shown+": removed the file, which the install created") {
				t.Errorf("the rc the install created is still there after uninstall (%v), or not said:\n%s", err, out)
			}
		})
	}
}

// buildDir holds builtWrapper's binary; TestMain removes it.
var buildDir string

// builtWrapper is cursor-wrap, built once for the tests that install it
// with --no-build.
var builtWrapper = func() func(t *testing.T) string {
	var once sync.Once
	var path string
	var err error
	return func(t *testing.T) string {
		t.Helper()
		once.Do(func() {
			if buildDir, err = os.MkdirTemp("", "cursor-wrap-install-test-"); err != nil {
				return
			}
			path = filepath.Join(buildDir, "cursor-wrap")
			var out []byte
			if out, err = exec.Command("go", "build", "-o", path, "..").CombinedOutput(); err != nil {
				err = errors.New(string(out))
			}
		})
		if err != nil {
			t.Fatal("building cursor-wrap:", err)
		}
		return path
	}
}()

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// fakeAgents is fakeBins without the wrappers.
func fakeAgents(t *testing.T) (self, realDir string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	realDir = t.TempDir()
	symlink(t, self, filepath.Join(realDir, "cursor-agent"))
	return self, realDir
}

// checkRan asserts that the recording cursor-agent ran with args, at
// DepthEnv depth ("" for none: no wrapper ran it), and clears the record.
func checkRan(t *testing.T, rec, args, depth string) {
	t.Helper()
	argv, err := os.ReadFile(filepath.Join(rec, "cursor-agent.argv"))
	if err != nil {
		t.Errorf("cursor-agent did not run: %v", err)
		return
	}
	if got := strings.ReplaceAll(strings.TrimSuffix(string(argv), "\x00"), "\x00", " "); got != args {
		t.Errorf("cursor-agent ran with %q, want %q", got, args)
	}
	if got := readOrEmpty(t, filepath.Join(rec, "cursor-agent.depth")); got != depth {
		t.Errorf("cursor-agent ran at depth %q, want %q (a depth means through the wrapper)", got, depth)
	}
	entries, _ := os.ReadDir(rec)
	for _, e := range entries {
		os.Remove(filepath.Join(rec, e.Name()))
	}
}

// TestInstallEdits covers the startup files install.sh finds as it is:
// a line of the user's own, an earlier install's line, no rc edit.
func TestInstallEdits(t *testing.T) {
	t.Parallel()
	const old = `eval "$(cursor-wrap shell-init bash)"` + installMarker + "\n"
	for _, c := range []struct {
		name, shell string
		args        []string
		onPath      bool
		bashrc      string // "" for none
		want        []string
		wantRC      string // "" for bashrc unchanged; LINE stands for the new line
	}{
		{name: "no-rc", shell: "/bin/bash", args: []string{"--no-rc"}, onPath: true,
			want: []string{"startup files left alone (--no-rc)\n"}},
		{name: "line of your own", shell: "/bin/bash", onPath: true,
			bashrc: "export A=1\neval \"$(cursor-wrap shell-init bash)\"  # mine\n",
			want:   []string{"~/.bashrc: line 2 already runs cursor-wrap shell-init (a line of your own); not changed: eval"}},
		{name: "line of your own, not on PATH", shell: "/bin/bash",
			bashrc: "eval \"$(cursor-wrap shell-init bash)\"\n",
			want:   []string{"  it finds cursor-wrap on PATH, which lacks {home}/bin: put {home}/bin/cursor-wrap in the line, or add {home}/bin to PATH\n"}},
		{name: "a commented line is not one", shell: "/bin/bash", onPath: true,
			bashrc: "# eval \"$(cursor-wrap shell-init bash)\"\n",
			want:   []string{"~/.bashrc: added line 2: "}, wantRC: "# eval \"$(cursor-wrap shell-init bash)\"\nLINE"},
		{name: "an earlier install's line", shell: "/bin/bash", onPath: true,
			bashrc: "export A=1\n" + old + "export B=2\n" + old,
			want: []string{"~/.bashrc: replaced line 2: " + strings.TrimSuffix(old, "\n") + "\n",
				"~/.bashrc: replaced line 4: " + strings.TrimSuffix(old, "\n") + "\n", "  with: if [ -x"},
			wantRC: "export A=1\nLINEexport B=2\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			prefix := filepath.Join(home, "bin")
			path := os.Getenv("PATH")
			if c.onPath {
				path = prefix + ":" + path
			}
			env := installEnv(t, home, prefix, c.shell, "PATH="+path)
			stubWrapper(t, prefix)
			if c.bashrc != "" {
				if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte(c.bashrc), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := install(t, env, append(c.args, "--no-build")...)
			for _, want := range c.want {
				if want = strings.ReplaceAll(want, "{home}", home); !strings.Contains(out, want) {
					t.Errorf("printed\n%s\nwant %q", out, want)
				}
			}
			if c.onPath == strings.Contains(out, "is not on PATH") {
				t.Errorf("printed\n%s\nwant PATH advice only when PREFIX is not on PATH", out)
			}
			want := c.bashrc
			if c.wantRC != "" {
				want = strings.ReplaceAll(c.wantRC, "LINE", InitLine("bash", filepath.Join(prefix, "cursor-wrap"), home)+installMarker+"\n")
			}
			if got := readOrEmpty(t, filepath.Join(home, ".bashrc")); got != want {
				t.Errorf(".bashrc is\n%q\nwant\n%q", got, want)
			}
			for _, rc := range []string{".zshrc", ".config/fish/config.fish", ".profile"} {
				if _, err := os.Lstat(filepath.Join(home, rc)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s touched: %v", rc, err)
				}
			}
			// A login bash reads none of the files here: it gets the line in
			// a ~/.bash_profile of its own (TestInstallBashLogin).
			want = ""
			if c.shell == "/bin/bash" && !slices.Contains(c.args, "--no-rc") {
				want = InitLine("bash", filepath.Join(prefix, "cursor-wrap"), home) + installMarker + " (it created this file)\n"
			}
			if got := readOrEmpty(t, filepath.Join(home, ".bash_profile")); got != want {
				t.Errorf(".bash_profile is\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// stubWrapper puts an executable cursor-wrap in prefix, for install.sh
// --no-build, which only edits startup files.
func stubWrapper(t *testing.T, prefix string) {
	t.Helper()
	mkdir(t, prefix)
	if err := os.WriteFile(filepath.Join(prefix, "cursor-wrap"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeUname puts first on PATH a uname that prints system.
func fakeUname(t *testing.T, system string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "uname"), []byte("#!/bin/sh\necho '"+system+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + dir + ":" + os.Getenv("PATH")
}

// TestInstallUnsupported checks that on a system it does not support, or
// with a PREFIX it cannot use, install.sh says so and stops before touching
// anything.
func TestInstallUnsupported(t *testing.T) {
	t.Parallel()
	for _, system := range []string{"FreeBSD", "MINGW64_NT-10.0-19045", "CYGWIN_NT-10.0"} {
		for _, args := range [][]string{nil, {"--uninstall"}} {
			home := t.TempDir()
			prefix := filepath.Join(home, "bin")
			out, code := runInstall(t, installEnv(t, home, prefix, "/bin/bash", fakeUname(t, system)), args...)
			if code != 1 || out != "install.sh: "+system+" is not supported: cursor-wrap runs on Linux and macOS (on Windows, inside WSL). Nothing was changed.\n" {
				t.Errorf("%s %q: exit %d\n%s", system, args, code, out)
			}
			if entries, _ := os.ReadDir(home); len(entries) != 0 {
				t.Errorf("%s %q: HOME has %v", system, args, entries)
			}
		}
	}
	home := t.TempDir()
	for _, prefix := range []string{"relative/bin", filepath.Join(home, "it's"), filepath.Join(home, `back\slash`)} {
		out, code := runInstall(t, installEnv(t, home, prefix, "/bin/bash"))
		if code != 2 || !strings.Contains(out, "Nothing was changed.") {
			t.Errorf("PREFIX=%s: exit %d\n%s", prefix, code, out)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("a refused PREFIX left %v in HOME", entries)
	}
	out, code := runInstall(t, installEnv(t, home, filepath.Join(home, "bin"), "/bin/bash"), "--no-build")
	if code != 1 || !strings.Contains(out, "--no-build, but there is no cursor-wrap at "+filepath.Join(home, "bin", "cursor-wrap")+". Nothing was changed.") {
		t.Errorf("--no-build without a binary: exit %d\n%s", code, out)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("--no-build without a binary left %v in HOME", entries)
	}
}

// TestInstallBashLogin checks the files a bash install changes, on Linux
// and macOS alike: ~/.bashrc, and the one file a login bash (Terminal on
// macOS, tmux, ssh, a console) reads unless it sources ~/.bashrc, never
// creating one that shadows another; that install.sh says which and why;
// that doctor's RCFile names the same; and that a new login bash and a new
// interactive one both get the function, while sh reading ~/.profile is
// left alone.
func TestInstallBashLogin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files map[string]string
		login string // the file a login bash gets the line from
		why   string
	}{
		{"none", nil, ".bash_profile", "reads only the first of ~/.bash_profile, ~/.bash_login and ~/.profile, and ~/.bashrc only if that one sources it; there is none, so ~/.bash_profile, created with the line, shadows none of them\n"},
		{"bash_profile", map[string]string{".bash_profile": "export A=1\n", ".profile": "export B=1\n"}, ".bash_profile", "reads ~/.bash_profile and not ~/.bashrc: the line goes there too\n"},
		{"bash_profile sources bashrc", map[string]string{".bash_profile": "[ -f ~/.bashrc ] && . ~/.bashrc\n"}, ".bashrc", "reads ~/.bash_profile, which sources ~/.bashrc: not changed\n"},
		{"bash_login", map[string]string{".bash_login": "export A=1\n", ".profile": "export B=1\n"}, ".bash_login", "reads ~/.bash_login and not ~/.bashrc: the line goes there too\n"},
		{"profile", map[string]string{".profile": "export A=1\n"}, ".profile", "reads ~/.profile and not ~/.bashrc: the line goes there too\n"},
		{"profile sources bashrc", map[string]string{".profile": "if [ -n \"$BASH_VERSION\" ]; then . \"$HOME/.bashrc\"; fi\n"}, ".bashrc", "reads ~/.profile, which sources ~/.bashrc: not changed\n"},
	} {
		for _, system := range []string{"Linux", "Darwin"} {
			t.Run(c.name+"/"+system, func(t *testing.T) {
				t.Parallel()
				home := t.TempDir()
				for name, text := range c.files {
					writeText(t, filepath.Join(home, name), text)
				}
				getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
				if got, want := RCFile("bash", true, getenv), filepath.Join(home, c.login); got != want {
					t.Errorf("RCFile: %s, want %s", got, want)
				}
				prefix := filepath.Join(home, "bin")
				mkdir(t, prefix)
				// A wrapper whose shell-init defines the function.
				wrapper := "#!/bin/sh\necho 'cursor-agent() { echo through-the-wrapper; }'\n"
				if err := os.WriteFile(filepath.Join(prefix, "cursor-wrap"), []byte(wrapper), 0o755); err != nil {
					t.Fatal(err)
				}
				out := install(t, installEnv(t, home, prefix, "/bin/bash", fakeUname(t, system)), "--no-build")
				bashrc := InitLine("bash", filepath.Join(prefix, "cursor-wrap"), home) + installMarker
				if !strings.Contains(out, "~/.bashrc: added line 1: "+bashrc+" (it created this file)\n") || !strings.Contains(out, c.why) {
					t.Errorf("printed\n%s\nwant the line added to ~/.bashrc and %q", out, c.why)
				}
				if c.login != ".bashrc" {
					line := bashrc
					if c.login == ".profile" {
						line = ProfileLine(filepath.Join(prefix, "cursor-wrap"), home) + installMarker
					}
					want := c.files[c.login] + line
					if c.files[c.login] == "" {
						want += " (it created this file)"
					}
					if got := readOrEmpty(t, filepath.Join(home, c.login)); got != want+"\n" {
						t.Errorf("~/%s is\n%q\nwant\n%q", c.login, got, want+"\n")
					}
				}
				for name, text := range c.files {
					if got := readOrEmpty(t, filepath.Join(home, name)); name != c.login && got != text {
						t.Errorf("~/%s changed: %q", name, got)
					}
				}
				for _, name := range []string{".bash_profile", ".bash_login", ".profile"} {
					if _, ok := c.files[name]; !ok && name != c.login {
						if _, err := os.Lstat(filepath.Join(home, name)); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("~/%s created: it shadows what a login bash read", name)
						}
					}
				}
				env := installEnv(t, home, prefix, "/bin/bash")
				for _, args := range [][]string{{"-i", "-c"}, {"-l", "-i", "-c"}} {
					cmd := exec.CommandContext(t.Context(), shellPath(t, "bash"), append(args, "cursor-agent")...)
					cmd.Env, cmd.Dir = append(env, "TERM=xterm"), home
					cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
					if got, err := cmd.Output(); err != nil || string(got) != "through-the-wrapper\n" {
						t.Errorf("bash %s cursor-agent: %q, %v", args[:len(args)-1], got, err)
					}
				}
				// sh reads ~/.profile at login too: the line is bash's alone.
				cmd := exec.CommandContext(t.Context(), "/bin/sh", "-l", "-c", "command -v cursor-agent || echo none")
				cmd.Env, cmd.Dir = env, home
				if got, err := cmd.CombinedOutput(); err != nil || string(got) != "none\n" {
					t.Errorf("sh -l: %q, %v", got, err)
				}
			})
		}
	}
}

// TestInstallPicksShell: install.sh puts the line in the startup file of
// the shell it was started from, whatever SHELL says; started from no
// shell, in that of the login shell in the password database; with
// neither, it refuses, asking for --shell, and changes nothing. It says
// which shell it used and why.
func TestInstallPicksShell(t *testing.T) {
	t.Parallel()
	installer, err := filepath.Abs(filepath.Join("..", "scripts", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// passwd puts first on PATH a getent (Linux) and a dscl (macOS) that
	// give the user login shell sh.
	passwd := func(t *testing.T, sh string) string {
		dir := t.TempDir()
		for name, text := range map[string]string{
			"getent": "#!/bin/sh\necho 'me:x:1000:1000::/home/me:" + sh + "'\n",
			"dscl":   "#!/bin/sh\necho 'UserShell: " + sh + "'\n",
		} {
			writeText(t, filepath.Join(dir, name), text)
			if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, c := range []struct {
		name    string
		parent  string // the shell that starts the script; "" for none
		passwd  string
		code    int
		rc      string // the file that gets the line; "" for none
		printed string
	}{
		{"from zsh", "zsh", "/bin/bash", 0, ".zshrc", "shell: zsh: the shell this script was started from (process "},
		{"from fish", "fish", "/bin/bash", 0, ".config/fish/config.fish", "shell: fish: the shell this script was started from (process "},
		{"from bash", "bash", "/usr/bin/zsh", 0, ".bashrc", "shell: bash: the shell this script was started from (process "},
		{"from no shell", "", "/usr/bin/fish", 0, ".config/fish/config.fish",
			"shell: fish: your login shell in the password database (/usr/bin/fish); this script was started from "},
		{"neither", "", "/bin/tcsh", 2, "",
			"and the password database gives /bin/tcsh. Run it again with --shell bash, --shell zsh or --shell fish (or --no-rc). Nothing was changed.\n"},
	} {
		for _, system := range []string{"Linux", "Darwin"} {
			t.Run(c.name+"/"+system, func(t *testing.T) {
				t.Parallel()
				home := t.TempDir()
				prefix := filepath.Join(home, "bin")
				stubWrapper(t, prefix)
				_, uname, _ := strings.Cut(fakeUname(t, system), "=")
				// SHELL names another shell, as a zsh or fish that does not
				// export it leaves the one of whatever started it.
				env := installEnv(t, home, prefix, "/bin/sh", "PATH="+passwd(t, c.passwd)+":"+uname)
				cmd := exec.CommandContext(t.Context(), "bash", installer, "--no-build")
				switch c.parent {
				case "fish":
					cmd = exec.CommandContext(t.Context(), shellPath(t, "fish"), "--no-config", "-c", "bash $argv; exit $status", installer, "--no-build")
				case "bash", "zsh":
					cmd = exec.CommandContext(t.Context(), shellPath(t, c.parent), "-c", `bash "$@"; exit $?`, c.parent, installer, "--no-build")
				}
				cmd.Env = env
				out, _ := cmd.CombinedOutput()
				if code := cmd.ProcessState.ExitCode(); code != c.code || !strings.Contains(string(out), c.printed) {
					t.Errorf("exit %d (want %d), printed\n%s\nwant %q", code, c.code, out, c.printed)
				}
				if c.rc == "" {
					if entries, _ := os.ReadDir(home); len(entries) != 1 {
						t.Errorf("a refusal left %v in HOME", entries)
					}
					return
				}
				if !strings.Contains(readOrEmpty(t, filepath.Join(home, c.rc)), installMarker) {
					t.Errorf("~/%s lacks the line; printed\n%s", c.rc, out)
				}
			})
		}
	}
	home := t.TempDir()
	if out, code := runInstall(t, installEnv(t, home, filepath.Join(home, "bin"), "/bin/tcsh")); code != 2 ||
		out != "install.sh: --shell tcsh: cursor-wrap has functions for bash, zsh and fish only. Nothing was changed.\n" {
		t.Errorf("--shell tcsh: exit %d\n%s", code, out)
	}
}

// TestInstallEarlierInstalls: PREFIX, BINDIR's old name, still works and
// says so; a reinstall into another BINDIR names the earlier one and how
// to remove it; --uninstall with the default BINDIR finds an install into
// another through its line, and names the completion lines it leaves;
// --no-rc says no line was added.
func TestInstallEarlierInstalls(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	old, bindir := filepath.Join(home, "old"), filepath.Join(home, ".local", "bin")
	stubWrapper(t, old)
	env := slices.DeleteFunc(installEnv(t, home, old, "/usr/bin/zsh"), func(kv string) bool { return strings.HasPrefix(kv, "BINDIR=") })
	out := install(t, append(env, "PREFIX="+old), "--no-build")
	if want := "install.sh: PREFIX is now called BINDIR: the directory the binaries go in (" + old + "/cursor-wrap, not " + old + "/bin/cursor-wrap); PREFIX still works, as BINDIR\n"; !strings.Contains(out, want) ||
		!strings.Contains(readOrEmpty(t, filepath.Join(home, ".zshrc")), `"$HOME/old/cursor-wrap"`) {
		t.Errorf("PREFIX: printed\n%s\nwant %q", out, want)
	}

	stubWrapper(t, bindir)
	out = install(t, installEnv(t, home, bindir, "/usr/bin/zsh"), "--no-build")
	if want := "an earlier install is in " + old + " (a startup line named it; now it names " + bindir + "/cursor-wrap): remove it with: rm " + old + "/cursor-wrap "; !strings.Contains(out, want) {
		t.Errorf("reinstall: printed\n%s\nwant %q", out, want)
	}
	os.Remove(filepath.Join(bindir, "cursor-wrap"))
	install(t, installEnv(t, home, old, "/usr/bin/zsh"), "--no-build")

	writeText(t, filepath.Join(home, ".bashrc"), "eval \"$(cursor-wrap completion bash)\"\nif command -v cursor-wrap >/dev/null; then eval \"$(cursor-wrap completion bash)\"; fi\n")
	out = install(t, installEnv(t, home, bindir, ""), "--uninstall")
	for _, want := range []string{
		"removed " + old + "/cursor-wrap, of an earlier install (a startup line named it)\n",
		"~/.zshrc: removed line 1: ",
		`~/.bashrc: left line 1, your line for cursor-wrap's completions: without cursor-wrap every new shell says "command not found"; remove it: eval "$(cursor-wrap completion bash)"` + "\n",
		"~/.bashrc: left line 2, your line for cursor-wrap's completions, which does nothing without cursor-wrap: if command -v",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--uninstall printed\n%s\nwant %q", out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(old, "cursor-wrap")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier install is still there: %v", err)
	}

	stubWrapper(t, bindir)
	out = install(t, installEnv(t, home, bindir, "/usr/bin/zsh"), "--no-build", "--no-rc")
	if !strings.Contains(out, bindir+" is not on PATH, and no startup line was added (--no-rc): type cursor-wrap as "+bindir+"/cursor-wrap, or add "+bindir+" to PATH\n") ||
		strings.Contains(out, "the shell line names") || strings.Contains(out, "open a new shell") {
		t.Errorf("--no-rc printed\n%s", out)
	}
}

// TestInstallUninstallLeavesOthers checks that --uninstall removes its lines from
// every startup file, names the lines it did not add, and leaves them.
func TestInstallUninstallLeavesOthers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	prefix := filepath.Join(home, "bin")
	stubWrapper(t, prefix)
	mine := "eval \"$(cursor-wrap shell-init bash)\"\n"
	ours := InitLine("bash", filepath.Join(prefix, "cursor-wrap"), home) + installMarker + "\n"
	writeText(t, filepath.Join(home, ".bashrc"), mine+ours)
	writeText(t, filepath.Join(home, ".profile"), "export A=1\n"+ours)
	out := install(t, installEnv(t, home, prefix, "/usr/bin/zsh"), "--uninstall")
	for _, want := range []string{
		"removed " + filepath.Join(prefix, "cursor-wrap") + "\n",
		filepath.Join(prefix, "cursor-wrap-mcp") + ": not there\n",
		"~/.bashrc: removed line 2: " + ours,
		"~/.bashrc: left line 1, which this script did not add: " + mine,
		"~/.profile: removed line 2: " + ours,
		"no config file or session logs to leave behind\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("printed\n%s\nwant %q", out, want)
		}
	}
	if got := readOrEmpty(t, filepath.Join(home, ".bashrc")); got != mine {
		t.Errorf(".bashrc: %q", got)
	}
	if got := readOrEmpty(t, filepath.Join(home, ".profile")); got != "export A=1\n" {
		t.Errorf(".profile: %q", got)
	}
}

// TestInstallRewriteIsWholeOrNothing: the user's startup file is replaced
// only by a complete copy. With writes failing part way (a full disk, here a
// file-size limit of 8 KiB against a 17 KB ~/.bashrc), --uninstall leaves the
// file byte for byte as it was, says so, and fails; when it can write, the
// file loses only our line, a symlink to it stays a symlink, and the old
// file is kept beside it.
func TestInstallRewriteIsWholeOrNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	prefix := filepath.Join(home, "bin")
	ours := InitLine("bash", filepath.Join(prefix, "cursor-wrap"), home) + installMarker + "\n"
	var head, tail strings.Builder
	for i := range 300 {
		b := &head
		if i >= 150 {
			b = &tail
		}
		fmt.Fprintf(b, "export LINE_%03d=\"a line of the user's own, long enough to fill the file\"\n", i)
	}
	mine := head.String() + tail.String()
	dotfiles := filepath.Join(home, "dotfiles")
	if err := os.Mkdir(dotfiles, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dotfiles, "bashrc")
	writeText(t, target, head.String()+ours+tail.String())
	if err := os.Chmod(target, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(home, ".bashrc")); err != nil {
		t.Fatal(err)
	}
	before := readOrEmpty(t, target)
	env := installEnv(t, home, prefix, "/bin/bash")

	stubWrapper(t, prefix)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", `ulimit -f 8 && exec bash "$0" --uninstall`, filepath.Join("..", "scripts", "install.sh"))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "~/.bashrc: NOT changed") || strings.Contains(string(out), "removed line") {
		t.Errorf("with writes failing: %v\n%s", err, out)
	}
	if got := readOrEmpty(t, target); got != before {
		t.Fatalf("with writes failing, ~/.bashrc went from %d to %d bytes", len(before), len(got))
	}

	// Adding the line to a file that lacks it goes the same way.
	writeText(t, filepath.Join(home, ".zshrc"), mine)
	stubWrapper(t, prefix)
	zenv := installEnv(t, home, prefix, "/usr/bin/zsh")
	cmd = exec.CommandContext(ctx, "bash", "-c", `ulimit -f 8 && exec bash "$0" --no-build --shell zsh`, filepath.Join("..", "scripts", "install.sh"))
	cmd.Env = zenv
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "~/.zshrc: NOT changed") || readOrEmpty(t, filepath.Join(home, ".zshrc")) != mine {
		t.Errorf("adding the line with writes failing: %v\n%s", err, out)
	}

	stubWrapper(t, prefix)
	printed := install(t, env, "--uninstall")
	if !strings.Contains(printed, "~/.bashrc: removed line 151: ") || !strings.Contains(printed, "kept as ~/.bashrc.cursor-wrap-backup") {
		t.Errorf("printed\n%s", printed)
	}
	if got := readOrEmpty(t, target); got != mine {
		t.Errorf("~/.bashrc after --uninstall: %d bytes, want the user's %d", len(got), len(mine))
	}
	if fi, err := os.Lstat(filepath.Join(home, ".bashrc")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("~/.bashrc is no longer a symlink: %v %v", fi, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after --uninstall: %v %v", fi, err)
	}
	if got := readOrEmpty(t, filepath.Join(home, ".bashrc.cursor-wrap-backup")); got != before {
		t.Errorf("backup: %d bytes, want %d", len(got), len(before))
	}
}

// TestUninstallInOpenShell: a shell opened before --uninstall keeps its
// cursor-agent function, which must then run the real agent, as the
// uninstaller says, even where the shell remembers where cursor-wrap was
// (bash hashes a command it ran: its `type -P` then named the removed file
// and the function failed with 127).
func TestUninstallInOpenShell(t *testing.T) {
	t.Parallel()
	_, realDir := fakeAgents(t)
	installer, err := filepath.Abs(filepath.Join("..", "scripts", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			shell := shellPath(t, sh)
			home := t.TempDir()
			prefix := filepath.Join(home, ".local", "bin")
			env := installEnv(t, home, prefix, shell)
			mkdir(t, prefix)
			copyFile(t, builtWrapper(t), filepath.Join(prefix, "cursor-wrap"))
			install(t, env, "--no-build")
			rec := t.TempDir()
			shellEnv := append(slices.Clone(env), "PATH="+prefix+":"+realDir+":/usr/bin:/bin", recordEnv+"="+rec,
				"CURSOR_WRAP_LOG_DIR="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
			program := "cursor-wrap version >/dev/null; bash '" + installer + "' --uninstall >/dev/null; cursor-agent --version z; echo rc=$?"
			if sh == "fish" {
				program = strings.Replace(program, "rc=$?", "rc=$status", 1)
			}
			stdout, stderr := newShell(t, sh, shellEnv, program)
			if !strings.HasSuffix(stdout, "rc=0\n") || stderr != "" {
				t.Errorf("cursor-agent in a %s opened before --uninstall:\nstdout: %s\nstderr: %s", sh, stdout, stderr)
			}
			checkRan(t, rec, "--version z", "")
		})
	}
}
