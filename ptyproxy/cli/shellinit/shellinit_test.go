package shellinit

import (
	"bytes"
	"os"
	"strings"
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

// TestShellInitUsage: no shell, an unknown shell or agent, a flag that is
// not shell-init's: a usage error that says what to give.
func TestShellInitUsage(t *testing.T) {
	t.Parallel()
	for want, args := range map[string][]string{
		"usage: cursor-wrap shell-init bash|zsh|fish":                   {},
		`unknown shell "tcsh"; supported shells: bash, zsh, fish`:       {"tcsh"},
		`unknown agent "aider"; known agents: cursor,`:                  {"bash", "--agents", "cursor,aider"},
		"shell-init: unknown flag --agent: did you mean --agents?":      {"bash", "--agent", "claude"},
		"shell-init: unexpected \"zsh\"\nusage: cursor-wrap shell-init": {"bash", "zsh"},
	} {
		stdout, stderr, code := run(args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "cursor-wrap: ") || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, stdout, stderr, want)
		}
	}
}

// TestShellInitScript: the functions name the wrapper by its path (this
// binary's, here) and define one function per agent asked for.
func TestShellInitScript(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run("bash", "--agents", "cursor,claude")
	if code != 0 || stderr != "" || !strings.Contains(stdout, self) || !strings.Contains(stdout, "function cursor-agent {") || !strings.Contains(stdout, "function claude {") {
		t.Errorf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}
