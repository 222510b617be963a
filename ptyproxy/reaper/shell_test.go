package reaper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// program writes an executable file of content in a directory of its own.
func program(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cursor-agent")
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// foreignELF is the start of an ELF executable for a machine this one is
// not (a VAX: no binfmt_misc emulator claims it either).
const foreignELF = "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x4b\x00\x01\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// script is a shell script without "#!": it reads a line of stdin and
// says what it was run as.
const script = `read line; echo "$0 got $1 and $line"; exit 3` + "\n"

// TestStartsAsAShellWould: a program the kernel will not execute but a
// shell would (a script without "#!", an empty file) runs under /bin/sh,
// as bash runs it, its stdin, arguments and status its own; a binary for
// another machine, or a file with a NUL in its first line, fails as the
// kernel says, as it does in bash (126, "exec format error").
func TestStartsAsAShellWould(t *testing.T) {
	t.Parallel()
	path := program(t, script)
	for name, cmd := range map[string]*Cmd{
		"Command":               Command(path, "arg"),
		"CommandContext":        CommandContext(context.Background(), path, "arg"),
		"CommandContext, group": CommandContext(context.Background(), path, "arg"),
	} {
		if strings.HasSuffix(name, "group") {
			cmd.KillGroup()
		}
		cmd.Stdin = strings.NewReader("input\n")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 || string(out) != path+" got arg and input\n" {
			t.Errorf("%s: %q, %v; want its own output and exit 3", name, out, err)
		}
	}
	if out, err := Command(program(t, "")).Output(); err != nil || len(out) != 0 {
		t.Errorf("an empty file: %q, %v; want an empty script's success", out, err)
	}
	for name, content := range map[string]string{
		"a binary for another machine": foreignELF,
		"a NUL in the first line":      "echo \x00 hi\necho hi\n",
	} {
		err := Command(program(t, content)).Run()
		if !errors.Is(err, syscall.ENOEXEC) || !strings.Contains(err.Error(), "exec format error") {
			t.Errorf("%s: %v, want the kernel's exec format error", name, err)
		}
	}
	// A NUL past the first line is text's business, as in bash.
	if out, err := Command(program(t, "echo hi\n\x00\n")).Output(); string(out) != "hi\n" {
		t.Errorf("a NUL on the second line: %q, %v", out, err)
	}
}

// TestStartUnderShellKeepsTheCmd: the Cmd that runs a script under the
// shell is the one the caller holds: its context still kills the child,
// its whole group when it has one, and Wait reports it.
func TestStartUnderShellKeepsTheCmd(t *testing.T) {
	t.Parallel()
	path := program(t, "sleep 30 & sleep 30\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := CommandContext(ctx, path)
	cmd.KillGroup()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cancel()
	err := cmd.Wait()
	if err == nil || !strings.Contains(err.Error(), "killed") || time.Since(start) > 10*time.Second {
		t.Fatalf("Wait = %v after %v, want killed at the context's end", err, time.Since(start))
	}
	if Owns(cmd.Process.Pid) {
		t.Error("the shell is still registered after Wait")
	}
}

// execEnv asks the test binary, run again, to Exec what it names.
const execEnv = "REAPER_TEST_EXEC"

// TestExecHelper is the process TestExec runs: it replaces itself with
// the program $REAPER_TEST_EXEC names, through Exec. Without it, it
// returns at once.
func TestExecHelper(t *testing.T) {
	path := os.Getenv(execEnv)
	if path == "" {
		return
	}
	err := Exec(path, []string{path, "arg"}, os.Environ())
	fmt.Println(err)
	os.Exit(126)
}

// TestExec: Exec, in place of the process, starts a program as Start
// does: a script without "#!" under the shell, a foreign binary refused
// with the kernel's words.
func TestExec(t *testing.T) {
	t.Parallel()
	for content, want := range map[string]string{
		script:     " got arg and input\n",
		foreignELF: "exec format error\n",
	} {
		path := program(t, content)
		cmd := Command(os.Args[0], "-test.run=^TestExecHelper$")
		cmd.Env = append(os.Environ(), execEnv+"="+path)
		cmd.Stdin = strings.NewReader("input\n")
		out, err := cmd.Output()
		if !strings.HasSuffix(string(out), want) {
			t.Errorf("exec of %q: %q, %v; want it to end in %q", content[:4], out, err, want)
		}
	}
}
