package shellhook

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/reaper"
)

// UserShell returns the name of the shell the user runs (bash, zsh or fish)
// and why it is that one: the shell that started this process, else the
// one in SHELL, else the login shell the password database gives; "" when
// none of them is a shell with functions. scripts/install.sh decides the
// same way, without SHELL, which it cannot tell from its own bash's.
func UserShell() (name, why string) {
	if p := parentName(os.Getppid()); slices.Contains(shells, p) {
		return p, "the shell that started this command"
	}
	if s := filepath.Base(os.Getenv("SHELL")); slices.Contains(shells, s) {
		return s, "$SHELL"
	}
	if s := filepath.Base(passwdShell()); slices.Contains(shells, s) {
		return s, "your login shell in the password database"
	}
	return "", ""
}

// parentName is the command name of process pid, as a shell names itself
// ("-zsh" for a login shell is "zsh").
func parentName(pid int) string {
	var name string
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil {
		name = string(b)
	} else if out, err := quick("ps", "-o", "comm=", "-p", strconv.Itoa(pid)); err == nil {
		name = out
	}
	return filepath.Base(strings.TrimPrefix(strings.TrimSpace(name), "-"))
}

// passwdShell is the user's login shell in the password database, "" when
// it cannot be read.
func passwdShell() string {
	uid := strconv.Itoa(os.Getuid())
	if runtime.GOOS == "darwin" {
		u, err := quick("id", "-un")
		if err != nil {
			return ""
		}
		out, _ := quick("dscl", ".", "-read", "/Users/"+strings.TrimSpace(u), "UserShell")
		_, sh, _ := strings.Cut(strings.TrimSpace(out), "UserShell: ")
		return strings.TrimSpace(sh)
	}
	out, err := quick("getent", "passwd", uid)
	if err != nil {
		return ""
	}
	fields := strings.Split(strings.TrimSpace(out), ":")
	return fields[len(fields)-1]
}

// quick runs a short query command, bounded in time.
func quick(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := reaper.CommandContext(ctx, name, args...).Output()
	return string(out), err
}
