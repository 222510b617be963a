package reaper

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// A program is started as a shell would start it: a file the kernel will
// not execute (ENOEXEC) that reads as text, such as a script without a
// "#!" line, runs under Shell, as bash and execvp(3) run it; anything else
// fails as the kernel said ("exec format error": a binary for another
// architecture). Cmd.Start and Exec, the only ways a program is started
// (see source_test.go), both go through underShell.

// Shell runs the scripts the kernel will not.
const Shell = "/bin/sh"

// sample is how much of a file is read to tell text from a binary, as
// bash reads it.
const sample = 80

// underShell reports whether path, which the kernel refused with err,
// runs under Shell: err is ENOEXEC and the file's first line (within
// its first sample bytes) holds no NUL, and it is no ELF file.
func underShell(path string, err error) bool {
	if !errors.Is(err, syscall.ENOEXEC) {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, sample)
	n, _ := io.ReadFull(f, b) // A short file is read whole; an empty one is an empty script.
	b = b[:n]
	if bytes.HasPrefix(b, []byte("\x7fELF")) {
		return false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return bytes.IndexByte(line, 0) < 0
}

// shellArgs are the arguments that run the script path with the
// arguments args (argv[0] left out) under Shell: the script is $0.
func shellArgs(path string, args []string) []string {
	return append([]string{Shell, path}, args...)
}

// Exec replaces the process with the program at path, as syscall.Exec
// does (argv[0] first), or with Shell running it when the kernel will not
// but a shell would. It returns only on failure.
func Exec(path string, argv, env []string) error {
	err := syscall.Exec(path, argv, env)
	if underShell(path, err) {
		err = syscall.Exec(Shell, shellArgs(path, argv[1:]), env)
	}
	return err
}

// startUnderShell starts, in place of the Cmd whose start failed with
// ENOEXEC, Shell running its program, with everything else the same.
// Called with mu held, as Start is.
func (c *Cmd) startUnderShell() error {
	sh := exec.Command(Shell)
	if c.ctx != nil {
		sh = exec.CommandContext(c.ctx, Shell)
	}
	sh.Args = shellArgs(c.Path, c.Args[1:])
	sh.Env, sh.Dir, sh.SysProcAttr = c.Env, c.Dir, c.SysProcAttr
	sh.Stdin, sh.Stdout, sh.Stderr, sh.ExtraFiles = c.Stdin, c.Stdout, c.Stderr, c.ExtraFiles
	// Cancel calls, through c, the Process of the Cmd in force: this one.
	sh.Cancel, sh.WaitDelay = c.Cancel, c.WaitDelay
	c.execCmd = *sh
	return c.execCmd.Start()
}
