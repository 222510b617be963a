package shellhook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ shell, wrapper, want string }{
		{"bash", "/home/me/.local/bin/cursor-wrap", `if [ -x "$HOME/.local/bin/cursor-wrap" ]; then eval "$("$HOME/.local/bin/cursor-wrap" shell-init bash)"; fi`},
		{"zsh", "/opt/cw/cursor-wrap", `if [ -x '/opt/cw/cursor-wrap' ]; then eval "$('/opt/cw/cursor-wrap' shell-init zsh)"; fi`},
		{"fish", "/home/me/my bin/cursor-wrap", `if test -x "$HOME/my bin/cursor-wrap"; "$HOME/my bin/cursor-wrap" shell-init fish | source; end`},
		{"bash", "/home/me/a$b/cursor-wrap", `if [ -x '/home/me/a$b/cursor-wrap' ]; then eval "$('/home/me/a$b/cursor-wrap' shell-init bash)"; fi`},
		{"bash", "/home/me/it's/cursor-wrap", `if command -v cursor-wrap >/dev/null 2>&1; then eval "$(cursor-wrap shell-init bash)"; fi`},
		{"fish", "", "if command -sq cursor-wrap; cursor-wrap shell-init fish | source; end"},
		{"bash", "/home/meme/cursor-wrap", `if [ -x '/home/meme/cursor-wrap' ]; then eval "$('/home/meme/cursor-wrap' shell-init bash)"; fi`},
	} {
		if got := InitLine(c.shell, c.wrapper, "/home/me"); got != c.want {
			t.Errorf("InitLine(%s, %q):\n%s\nwant\n%s", c.shell, c.wrapper, got, c.want)
		}
	}
}

// TestInitLineInShells runs the line in a new bash, zsh and fish for
// wrappers whose paths need quoting: it loads what the wrapper prints, and
// once the wrapper is gone it prints nothing and changes nothing.
func TestInitLineInShells(t *testing.T) {
	t.Parallel()
	for _, shell := range Shells() {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			for _, wrapper := range []string{
				filepath.Join(home, "my bin", "cursor-wrap"),
				filepath.Join(home, "a$b `c` !", "cursor-wrap"),
				filepath.Join(t.TempDir(), "x y", "cursor-wrap"),
			} {
				writeText(t, wrapper, "#!/bin/sh\nprintf \"echo '%s'\\n\" \"loaded by $0 $*\"\n")
				if err := os.Chmod(wrapper, 0o755); err != nil {
					t.Fatal(err)
				}
				writeText(t, filepath.Join(home, rcName[shell]), InitLine(shell, wrapper, home)+"\n")
				env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
				stdout, stderr := newShell(t, shell, env, "true")
				if want := "loaded by " + wrapper + " shell-init " + shell + "\n"; stdout != want || stderr != "" {
					t.Errorf("%s: stdout %q, want %q; stderr %q", wrapper, stdout, want, stderr)
				}
				if err := os.Remove(wrapper); err != nil {
					t.Fatal(err)
				}
				if stdout, stderr := newShell(t, shell, env, "true"); stdout != "" || stderr != "" {
					t.Errorf("%s gone: stdout %q, stderr %q", wrapper, stdout, stderr)
				}
			}
		})
	}
}

func TestRCFile(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HOME": "/h"}
	getenv := func(k string) string { return env[k] }
	for shell, want := range map[string]string{"bash": "/h/.bashrc", "zsh": "/h/.zshrc", "fish": "/h/.config/fish/config.fish", "tcsh": ""} {
		if got := RCFile(shell, false, getenv); got != want {
			t.Errorf("%s: %q, want %q", shell, got, want)
		}
	}
	env["ZDOTDIR"], env["XDG_CONFIG_HOME"] = "/z", "/c"
	if got := RCFile("zsh", true, getenv); got != "/z/.zshrc" {
		t.Errorf("zsh with ZDOTDIR: %s", got)
	}
	if got := RCFile("fish", true, getenv); got != "/c/fish/config.fish" {
		t.Errorf("fish with XDG_CONFIG_HOME: %s", got)
	}
}

func TestFindInitLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeText(t, a, "# eval \"$(cursor-wrap shell-init bash)\"\nexport X=1\n")
	writeText(t, b, "x\nif [ -x '/o/cursor-wrap' ]; then eval \"$('/o/cursor-wrap' shell-init bash)\"; fi\n")
	file, n, line := FindInitLine([]string{filepath.Join(dir, "missing"), a, b})
	if file != b || n != 2 || !strings.HasPrefix(line, "if [ -x") {
		t.Errorf("found %s:%d %q", file, n, line)
	}
	if file, _, _ := FindInitLine([]string{a}); file != "" {
		t.Errorf("a comment counted: %s", file)
	}
}
