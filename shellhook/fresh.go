package shellhook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"cursor-wrap/ptyproxy/reaper"
)

// Fresh is what a new shell finds, as NewShell started it.
type Fresh struct {
	Wrapper  string // the cursor-wrap on its PATH, "" for none
	Function string // the function's text as the shell prints it, "" for none
	Alias    string // an alias of the function's name, which shadows it in bash and zsh
	PATH     string // its PATH
}

// defaultPATH is where the system's login files start from.
const defaultPATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

// marker separates the answers of the probe from whatever the user's
// startup files print.
const marker = "@@cursor-wrap-probe@@"

// NewShell starts the shell at path (bash, zsh or fish, by its name) as a
// new terminal, tmux window or ssh session would, and asks it for
// cursor-wrap on its PATH and for the function called name. home is the
// directory it starts in; login says whether it is a login shell.
//
// # A new shell
//
// The shell gets environ without what a running shell added to it and a
// new one would not inherit: PATH, exported bash functions, ENV and
// BASH_ENV. A login shell (-l -i: macOS's Terminal, tmux, ssh, a console)
// sets PATH from the system's files (path_helper on macOS). Another (-i: a
// terminal window elsewhere) gets the desktop session's PATH, which comes
// from /etc/profile and ~/.profile, read here by `sh -l`. The shell runs
// in a session of its own, so it cannot take the caller's terminal, and
// its stdin is empty, so a startup file that reads input goes on at once;
// the end of ctx kills that session.
func NewShell(ctx context.Context, path string, login bool, name, home string, environ []string) (Fresh, error) {
	var probe string
	switch filepath.Base(path) {
	case "bash":
		probe = probeFor("type -P cursor-wrap", "declare -f "+name, "alias "+name)
	case "zsh":
		probe = probeFor("whence -p cursor-wrap", "functions "+name, "alias "+name)
	case "fish":
		// In fish an alias is a function.
		probe = probeFor("command -s cursor-wrap", "functions "+name, "true")
	default:
		return Fresh{}, fmt.Errorf("%w %q; supported shells: %s", ErrUnknownShell, path, strings.Join(shells, ", "))
	}
	env := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "PATH" || k == "ENV" || k == "BASH_ENV" || strings.HasPrefix(k, "BASH_FUNC_")
	})
	args := []string{"-l", "-i", "-c", probe}
	if login {
		env = append(env, "PATH="+defaultPATH)
	} else {
		sessionPATH := defaultPATH
		out, _, err := runFresh(ctx, "/bin/sh", home, append(env, "PATH="+defaultPATH), "-l", "-c", `printf '\n%s%s' `+marker+` "$PATH"`)
		if _, p, ok := strings.Cut(string(out), "\n"+marker); ok && err == nil && p != "" {
			sessionPATH = p
		}
		env = append(env, "PATH="+sessionPATH)
		args = args[1:]
	}
	out, stderr, err := runFresh(ctx, path, home, env, args...)
	// A status other than 0 after a complete answer (say, from a logout
	// file) does not matter.
	parts := strings.Split(string(out), marker+"\n")
	if ctx.Err() != nil || len(parts) < 6 {
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			err = fmt.Errorf("it did not finish starting: %w", ctx.Err())
		case errors.As(err, &ee):
			err = fmt.Errorf("it exited with status %d before the check ran", ee.ExitCode())
		case err == nil:
			err = errors.New("it exited before the check ran")
		}
		msg := strings.TrimSpace(string(stderr))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:] // The last line says most; bash's first ones are about job control.
		}
		if msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return Fresh{}, err
	}
	parts = parts[len(parts)-5:]
	return Fresh{
		Wrapper:  strings.TrimSpace(parts[0]),
		Function: parts[1],
		Alias:    strings.TrimSpace(parts[2]),
		PATH:     strings.TrimSpace(parts[3]),
	}, nil
}

// probeFor is a program, valid in bash, zsh and fish, that prints the
// answers of the commands between markers, and the PATH.
func probeFor(wrapper, function, alias string) string {
	m := "printf '%s\\n' " + marker + "; "
	return "printf '\\n'; " + m + wrapper + "; " + m + function + "; " + m + alias + "; " + m +
		`printf '%s\n' "$PATH"; ` + m
}

// runFresh runs a shell in a session of its own and returns its stdout and
// stderr; ctx's end kills the whole session.
func runFresh(ctx context.Context, path, dir string, env []string, args ...string) (stdout, stderr []byte, err error) {
	cmd := reaper.CommandContext(ctx, path, args...)
	cmd.Env = env
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		cmd.Dir = dir
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.KillGroup()
	out, errb := reaper.NewKept(reaper.DefaultKeep), reaper.NewKept(reaper.DefaultKeep)
	cmd.Stdout, cmd.Stderr = out, errb
	err = cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}
