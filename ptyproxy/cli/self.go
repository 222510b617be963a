package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"cursor-wrap/ptyproxy/job"
)

// Self is this binary's path for the shell functions and the advice: the
// name it was started by when that is this same file (a symlink, as
// package managers make, then outlives an upgrade), else os.Executable.
func (e *Env) Self() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	p := e.Arg0
	if p == "" {
		return exe
	}
	if !strings.Contains(p, "/") {
		if p, err = exec.LookPath(p); err != nil {
			return exe
		}
	}
	if abs, err := filepath.Abs(p); err == nil && SameFile(abs, exe) {
		return abs
	}
	return exe
}

// TypedName is how a user types this wrapper: cursor-wrap when PATH finds
// this binary by that name, else its full path (the installer's PREFIX is
// often not on PATH, and the shell functions name the wrapper by its path).
func (e *Env) TypedName() string {
	self := e.Self()
	if onPath, err := exec.LookPath("cursor-wrap"); err == nil && (self == "" || SameFile(onPath, self)) {
		return "cursor-wrap"
	}
	if self == "" {
		return "cursor-wrap"
	}
	return job.ShellWords([]string{self})
}

// SameFile reports whether two paths name one file.
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// Tilde writes a path under HOME as ~/….
func Tilde(path string) string {
	if rest, ok := strings.CutPrefix(path, os.Getenv("HOME")+"/"); ok && os.Getenv("HOME") != "" {
		return "~/" + rest
	}
	return path
}

// Fd is the descriptor of a command's stream when it is a file (the
// process's own), else -1. It leaves the file's mode alone, as
// (*os.File).Fd would not.
func Fd(stream any) int {
	f, ok := stream.(*os.File)
	if !ok || f == nil {
		return -1
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if rc.Control(func(d uintptr) { fd = int(d) }) != nil {
		return -1
	}
	return fd
}

// IsTerminal reports whether a command's stream is a terminal.
func IsTerminal(stream any) bool {
	fd := Fd(stream)
	return fd >= 0 && term.IsTerminal(fd)
}

// Colour says whether a command's output on stream may be coloured: it is
// a terminal, and NO_COLOR is not set.
func Colour(stream any) bool {
	return IsTerminal(stream) && os.Getenv("NO_COLOR") == ""
}
