package shellhook

import (
	"os"
	"path/filepath"
	"strings"
)

// RCFile returns the startup file that gets the shell-init line for shell
// (bash, zsh or fish; "" for another) read by a new login shell, or by
// another interactive one. scripts/install.sh picks the same files by the
// same rules.
//
// # bash
//
// A login bash (macOS's Terminal, tmux, ssh, a console) reads the first of
// ~/.bash_profile, ~/.bash_login and ~/.profile that exists, and ~/.bashrc
// only when that file sources it; with none of them, ~/.bash_profile is the
// file to create, since it shadows nothing. Another interactive bash reads
// ~/.bashrc. zsh and fish read the same file either way.
func RCFile(shell string, login bool, getenv func(string) string) string {
	home := getenv("HOME")
	switch shell {
	case "bash":
		if !login {
			return filepath.Join(home, ".bashrc")
		}
		if name := BashLoginFile(home); name != "" {
			if b, err := os.ReadFile(name); err == nil && strings.Contains(string(b), ".bashrc") {
				return filepath.Join(home, ".bashrc")
			}
			return name
		}
		return filepath.Join(home, ".bash_profile")
	case "zsh":
		dir := getenv("ZDOTDIR")
		if dir == "" {
			dir = home
		}
		return filepath.Join(dir, ".zshrc")
	case "fish":
		dir := getenv("XDG_CONFIG_HOME")
		if dir == "" {
			dir = filepath.Join(home, ".config")
		}
		return filepath.Join(dir, "fish", "config.fish")
	}
	return ""
}

// BashLoginFile returns the login file a login bash reads in home: the
// first of ~/.bash_profile, ~/.bash_login and ~/.profile that exists, ""
// for none.
func BashLoginFile(home string) string {
	for _, name := range []string{".bash_profile", ".bash_login", ".profile"} {
		if _, err := os.Stat(filepath.Join(home, name)); err == nil {
			return filepath.Join(home, name)
		}
	}
	return ""
}

// ProfileLine is InitLine for ~/.profile, which sh and dash read too: the
// line runs in bash only.
func ProfileLine(wrapper, home string) string {
	return `if [ -n "${BASH_VERSION:-}" ] && ` + strings.TrimPrefix(InitLine("bash", wrapper, home), "if ")
}

// InitLine returns the startup-file line that loads the functions of shell
// from the cursor-wrap at wrapper, as scripts/install.sh writes it. The line
// names the wrapper by its path, so a shell whose PATH lacks it still gets
// the functions, and does nothing when no executable is there: a wrapper
// removed later costs a new shell no error message. Under home the path is
// written "$HOME/…", so shared dotfiles work in a home that lives elsewhere.
// A wrapper that cannot be quoted plainly (see Script) is found on PATH.
func InitLine(shell, wrapper, home string) string {
	word := ""
	if rest, ok := strings.CutPrefix(wrapper, home+"/"); ok && home != "" && embeddable(wrapper) && !strings.ContainsAny(rest, "\"$`!") {
		word = `"$HOME/` + rest + `"`
	} else if embeddable(wrapper) {
		word = "'" + wrapper + "'"
	}
	switch {
	case shell == "fish" && word == "":
		return "if command -sq cursor-wrap; cursor-wrap shell-init fish | source; end"
	case shell == "fish":
		return "if test -x " + word + "; " + word + " shell-init fish | source; end"
	case word == "":
		return `if command -v cursor-wrap >/dev/null 2>&1; then eval "$(cursor-wrap shell-init ` + shell + `)"; fi`
	}
	return `if [ -x ` + word + ` ]; then eval "$(` + word + ` shell-init ` + shell + `)"; fi`
}

// StartupFiles returns the files in which a shell-init line for shell takes
// effect in some new shell: RCFile's candidates, login files included.
func StartupFiles(shell string, getenv func(string) string) []string {
	home := getenv("HOME")
	switch shell {
	case "bash":
		return []string{filepath.Join(home, ".bashrc"), filepath.Join(home, ".bash_profile"),
			filepath.Join(home, ".bash_login"), filepath.Join(home, ".profile")}
	case "zsh":
		dir := filepath.Dir(RCFile("zsh", false, getenv))
		return []string{filepath.Join(dir, ".zshenv"), filepath.Join(dir, ".zprofile"),
			filepath.Join(dir, ".zshrc"), filepath.Join(dir, ".zlogin")}
	case "fish":
		config := RCFile("fish", false, getenv)
		confd, _ := filepath.Glob(filepath.Join(filepath.Dir(config), "conf.d", "*.fish"))
		return append([]string{config}, confd...)
	}
	return nil
}

// FindInitLine returns the first line of files that runs `cursor-wrap
// shell-init` and is not a comment, with its file and number (from 1).
func FindInitLine(files []string) (file string, n int, line string) {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for i, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			if strings.Contains(l, "cursor-wrap shell-init") || strings.Contains(l, `cursor-wrap" shell-init`) ||
				strings.Contains(l, "cursor-wrap' shell-init") {
				return f, i + 1, l
			}
		}
	}
	return "", 0, ""
}
