package shellhook

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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
		t.Skip("no usable go toolchain:", err)
	}
	drop := []string{"HOME", "PREFIX", "SHELL", "ZDOTDIR", "XDG_CONFIG_HOME", "GOCACHE", "GOMODCACHE", "GOPATH"}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, name)
	})
	env = append(env, genv...)
	return append(env, append([]string{"HOME=" + home, "PREFIX=" + prefix, "SHELL=" + shell}, extra...)...)
}

// install runs scripts/install.sh with args and returns what it printed.
func install(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join("..", "scripts", "install.sh")}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh %q: %v\n%s", args, err, out)
	}
	return string(out)
}

func readOrEmpty(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstall(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		shell  string
		rc     string // relative to HOME
		extra  []string
		before string // the rc file's content before install; "" for none
		line   string
	}{
		{"/bin/bash", ".bashrc", nil, "# mine\nalias x=y\n", `eval "$(cursor-wrap shell-init bash)"`},
		{"/usr/bin/zsh", "zdot/.zshrc", []string{"ZDOTDIR=HOME/zdot"}, "", `eval "$(cursor-wrap shell-init zsh)"`},
		{"/usr/bin/fish", ".config/fish/config.fish", nil, "set x 1", "cursor-wrap shell-init fish | source"},
	} {
		t.Run(filepath.Base(c.shell), func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			prefix := filepath.Join(home, "bin")
			rc := filepath.Join(home, c.rc)
			var extra []string
			for _, kv := range c.extra {
				extra = append(extra, strings.ReplaceAll(kv, "HOME", home))
			}
			env := installEnv(t, home, prefix, c.shell, extra...)
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

			out := install(t, env)
			for _, want := range []string{
				"installed " + filepath.Join(prefix, "cursor-wrap") + "\n",
				"installed " + filepath.Join(prefix, "cursor-wrap-mcp") + "\n",
				prefix + " is not on PATH",
				"added '" + c.line + "' to " + shown + "\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("first run printed\n%s\nwant %q", out, want)
				}
			}
			if fi, err := os.Stat(filepath.Join(prefix, "cursor-wrap")); err != nil || fi.Mode()&0o111 == 0 {
				t.Errorf("binary not installed: %v", err)
			}
			sep := ""
			if c.before != "" && !strings.HasSuffix(c.before, "\n") {
				sep = "\n"
			}
			wantRC := c.before + sep + c.line + installMarker + "\n"
			if got := readOrEmpty(t, rc); got != wantRC {
				t.Errorf("rc after install:\n%q\nwant\n%q", got, wantRC)
			}

			if out := install(t, env); !strings.Contains(out, shown+" already has the cursor-wrap line\n") {
				t.Errorf("second run printed\n%s", out)
			}
			if got := readOrEmpty(t, rc); got != wantRC {
				t.Errorf("rc after second install:\n%q\nwant\n%q", got, wantRC)
			}

			out = install(t, env, "--uninstall")
			for _, want := range []string{
				"removed " + filepath.Join(prefix, "cursor-wrap") + "\n",
				"removed " + filepath.Join(prefix, "cursor-wrap-mcp") + "\n",
				"removed the cursor-wrap line from " + shown + "\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("uninstall printed\n%s\nwant %q", out, want)
				}
			}
			if _, err := os.Lstat(filepath.Join(prefix, "cursor-wrap")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("binary still there after uninstall: %v", err)
			}
			if got := readOrEmpty(t, rc); got != c.before+sep {
				t.Errorf("rc after uninstall:\n%q\nwant\n%q", got, c.before+sep)
			}
			if c.before != "" {
				if fi, err := os.Lstat(rc); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("rc symlink replaced: %v", err)
				}
			}
		})
	}
}

func TestInstallWithoutRCEdit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, shell string
		args        []string
		bashrc      string // "" for none
		want        string
	}{
		{"no-rc", "/bin/bash", []string{"--no-rc"}, "", ""},
		{"unknown shell", "/bin/tcsh", nil, "", "could not pick an rc file for SHELL=/bin/tcsh"},
		{"no shell", "", nil, "", "could not pick an rc file for SHELL="},
		{"line added by hand", "/bin/bash", nil, "eval \"$(cursor-wrap shell-init bash)\"  # mine\n",
			"~/.bashrc already has the cursor-wrap line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			prefix := filepath.Join(home, "bin")
			// PREFIX on PATH: no advice to add it.
			env := installEnv(t, home, prefix, c.shell, "PATH="+prefix+":"+os.Getenv("PATH"))
			if c.bashrc != "" {
				if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte(c.bashrc), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := install(t, env, c.args...)
			if !strings.Contains(out, c.want) || strings.Contains(out, "not on PATH") {
				t.Errorf("printed\n%s\nwant %q and no PATH advice", out, c.want)
			}
			if strings.HasPrefix(c.want, "could not") && !strings.Contains(out, `bash: eval "$(cursor-wrap shell-init bash)"`) {
				t.Errorf("printed\n%s\nwant the line to add by hand", out)
			}
			if got := readOrEmpty(t, filepath.Join(home, ".bashrc")); got != c.bashrc {
				t.Errorf(".bashrc changed to %q", got)
			}
			for _, rc := range []string{".zshrc", ".config/fish/config.fish"} {
				if _, err := os.Lstat(filepath.Join(home, rc)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s touched: %v", rc, err)
				}
			}
		})
	}
}
