package shellhook

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rcName is where each shell's startup lines go in a throwaway HOME.
var rcName = map[string]string{"bash": ".bashrc", "zsh": ".zshrc", "fish": ".config/fish/config.fish"}

// addPATH is the startup line that puts dir first on PATH in each shell.
func addPATH(shell, dir string) string {
	if shell == "fish" {
		return "set -gx PATH '" + dir + "' $PATH\n"
	}
	return "export PATH='" + dir + "':$PATH\n"
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// freshEnv is a minimal environment of a shell that runs NewShell: its own
// PATH holds dirty, which a new shell must not inherit.
func freshEnv(home, dirty string, extra ...string) []string {
	return append([]string{"HOME=" + home, "LANG=C.UTF-8", "PATH=" + dirty + ":/usr/bin:/bin"}, extra...)
}

func newShellOf(t *testing.T, shell string, login bool, home string, env []string) (Fresh, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	return NewShell(ctx, shellPath(t, shell), login, "cursor-agent", home, env)
}

// TestNewShell checks what NewShell reports of a new shell in each of bash,
// zsh and fish: the wrapper found on a PATH set by the startup files (and
// not the caller's), the function as the shell prints it, with the embedded
// wrapper path read back from that text, and an alias that shadows it.
func TestNewShell(t *testing.T) {
	t.Parallel()
	wrapDir, embedded, _ := fakeBins(t)
	for _, shell := range Shells() {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			script, err := Script(shell, embedded, nil)
			if err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			writeText(t, filepath.Join(home, rcName[shell]), addPATH(shell, wrapDir)+script)
			got, err := newShellOf(t, shell, false, home, freshEnv(home, t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			if got.Wrapper != filepath.Join(wrapDir, "cursor-wrap") || !strings.HasPrefix(got.PATH, wrapDir+":") {
				t.Errorf("wrapper %q, PATH %q; want %s/cursor-wrap first", got.Wrapper, got.PATH, wrapDir)
			}
			if !strings.Contains(got.Function, "--alias --agent cursor") || EmbeddedWrapper(got.Function) != embedded {
				t.Errorf("function (embedding %q):\n%s", EmbeddedWrapper(got.Function), got.Function)
			}
			if got.Alias != "" {
				t.Errorf("alias %q", got.Alias)
			}

			// Nothing in the startup files: neither the caller's PATH nor
			// an exported bash function reaches the new shell.
			bare := t.TempDir()
			writeText(t, filepath.Join(bare, rcName[shell]), "")
			got, err = newShellOf(t, shell, false, bare, freshEnv(bare, wrapDir, "BASH_FUNC_cursor-agent%%=() { echo exported; }"))
			if err != nil || got.Wrapper != "" || got.Function != "" {
				t.Errorf("an empty startup file: %+v, %v", got, err)
			}

			// The session's PATH comes from ~/.profile, read by sh -l.
			profiled := t.TempDir()
			writeText(t, filepath.Join(profiled, ".profile"), "PATH='"+wrapDir+"':$PATH\n")
			writeText(t, filepath.Join(profiled, rcName[shell]), "")
			got, err = newShellOf(t, shell, false, profiled, freshEnv(profiled, t.TempDir()))
			if err != nil || got.Wrapper != filepath.Join(wrapDir, "cursor-wrap") {
				t.Errorf("PATH in ~/.profile: %+v, %v", got, err)
			}

			if shell == "fish" {
				return // An alias is a function in fish.
			}
			aliased := t.TempDir()
			writeText(t, filepath.Join(aliased, rcName[shell]), script+"alias cursor-agent='echo hi'\n")
			got, err = newShellOf(t, shell, false, aliased, freshEnv(aliased, t.TempDir()))
			if err != nil || !strings.Contains(got.Alias, "echo hi") || !strings.Contains(got.Function, "--alias") {
				t.Errorf("an alias after the functions: %+v, %v", got, err)
			}
		})
	}
}

// TestNewShellLogin checks a login shell (macOS's Terminal, tmux, ssh):
// bash reads ~/.bash_profile and not ~/.bashrc.
func TestNewShellLogin(t *testing.T) {
	t.Parallel()
	wrapDir, _, _ := fakeBins(t)
	script, err := Script("bash", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for file, found := range map[string]bool{".bash_profile": true, ".bashrc": false} {
		home := t.TempDir()
		writeText(t, filepath.Join(home, file), addPATH("bash", wrapDir)+script)
		got, err := newShellOf(t, "bash", true, home, freshEnv(home, t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		if (got.Function != "") != found || (got.Wrapper != "") != found {
			t.Errorf("the lines in ~/%s: %+v; want found %v", file, got, found)
		}
	}
}

// TestNewShellFails checks that a new shell that exits early or never
// finishes starting is an error that says so, in time.
func TestNewShellFails(t *testing.T) {
	t.Parallel()
	for rc, want := range map[string]string{
		"echo 'oh no' >&2; exit 3\n": "it exited with status 3 before the check ran: oh no",
		"sleep 60\n":                 "it did not finish starting",
	} {
		home := t.TempDir()
		writeText(t, filepath.Join(home, ".bashrc"), rc)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		start := time.Now()
		_, err := NewShell(ctx, shellPath(t, "bash"), false, "cursor-agent", home, freshEnv(home, ""))
		cancel()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", rc, err, want)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%q: took %v", rc, took)
		}
	}
	if _, err := NewShell(t.Context(), "/bin/tcsh", false, "cursor-agent", "", nil); !errors.Is(err, ErrUnknownShell) {
		t.Errorf("tcsh: %v", err)
	}
}
