package completion

import (
	"bytes"
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

// TestCompletionUsage: no shell, an unknown one or two are a usage error
// that says how each shell loads its completions; --help says it on
// stdout. (The scripts in real shells: scripts/e2e; that they follow the
// table and the flags: the table's test beside main.go.)
func TestCompletionUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"tcsh"}, {"bash", "zsh"}} {
		stdout, stderr, code := run(args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "usage: cursor-wrap completion bash|zsh|fish") || !strings.Contains(stderr, `if command -v cursor-wrap >/dev/null; then eval "$(cursor-wrap completion zsh)"; fi    in ~/.zshrc`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if stdout, _, code := run("--help"); code != 0 || !strings.HasPrefix(stdout, "usage: cursor-wrap completion bash|zsh|fish\n") {
		t.Errorf("--help: exit %d: %q", code, stdout)
	}
}

// TestCompletionScripts: each script completes the table's commands.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for shell, want := range map[string]string{"bash": "complete -o default -F _cursor_wrap cursor-wrap", "zsh": "#compdef cursor-wrap",
		"fish": "complete -c cursor-wrap -n __cursor_wrap_first -f -a completion -d 'print shell completions for cursor-wrap'"} {
		stdout, stderr, code := run(shell)
		if code != 0 || stderr != "" || !strings.Contains(stdout, want) {
			t.Errorf("%s: exit %d, stderr %q; lacks %q", shell, code, stderr, want)
		}
	}
}
