package version

import (
	"bytes"
	"testing"

	"cursor-wrap/ptyproxy/cli"
)

// run runs the command in process with args, and returns what it wrote
// and its exit status.
func run(args ...string) (stdout, stderr string, code int) {
	var out, errs bytes.Buffer
	code = Run(&cli.Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errs, Commands: cli.Table{Command}}, args)
	return out.String(), errs.String(), code
}

// TestVersionCommand prints the version line, and takes no argument. (A
// built binary's line, with its commit: scripts/e2e.)
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	if stdout, stderr, code := run(); code != 0 || stderr != "" || stdout != cli.Version("cursor-wrap")+"\n" {
		t.Errorf("version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stdout, _, code := run("--help"); code != 0 || stdout != "usage: cursor-wrap version (or --version): the version, and for a build from a checkout its commit\n" {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
	if stdout, stderr, code := run("now"); code != 2 || stdout != "" || stderr != "cursor-wrap: usage: cursor-wrap version (it takes no arguments)\n" {
		t.Errorf("version now: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
