// Package shellhook makes a plain `cursor-agent …` typed in bash, zsh or fish
// run through cursor-wrap: it writes the shell-init functions and the
// startup-file line that loads them, asks a new shell whether they are
// there, finds the real agent binary behind them, and keeps the wrapper from
// ever running itself.
package shellhook

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"cursor-wrap/stream"
)

// FuncEnv names the variable the shell functions set, for the wrapper only,
// to the function name the user typed (`agent` or `cursor-agent`, …).
const FuncEnv = "CURSOR_WRAP_SHELL_FUNC"

// ErrUnknownShell is returned by Script for a shell it cannot write for.
var ErrUnknownShell = errors.New("unknown shell")

// ErrUnknownAgent is returned by Script and FindAgent for an agent profile
// they do not know.
var ErrUnknownAgent = errors.New("unknown agent")

// shells lists the supported shells in the order usage text shows them.
var shells = []string{"bash", "zsh", "fish"}

// Shells returns the shells Script supports.
func Shells() []string { return slices.Clone(shells) }

// Agents returns the agent profile names Script accepts.
func Agents() []string { return stream.ProfileNames() }

// profileNamed returns the agent profile named agent.
func profileNamed(agent string) (*stream.Profile, error) {
	p, err := stream.ProfileNamed(agent)
	if err != nil {
		return nil, fmt.Errorf("%w %q; known agents: %s", ErrUnknownAgent, agent, strings.Join(Agents(), ", "))
	}
	return p, nil
}

// Binaries returns the command names to look for on PATH for the agent of
// profile p, in the order of its Binaries, with invoked (the function the
// user typed, from FuncEnv) first when it is one of them: `agent` looks for
// agent before cursor-agent.
func Binaries(p *stream.Profile, invoked string) []string {
	names := slices.Clone(p.Binaries)
	if i := slices.Index(names, invoked); i > 0 {
		names = slices.Insert(slices.Delete(names, i, i+1), 0, invoked)
	}
	return names
}

// Script returns the text `cursor-wrap shell-init SHELL` prints: one function
// per command of each agent profile (nil or empty means cursor only).
//
// Each function runs `cursor-wrap --alias --agent PROFILE -- ARGS`, with
// FuncEnv set for that command alone. wrapper is the absolute path of the
// cursor-wrap that prints the script: the functions run it while it is an
// executable file, so they work in a shell whose PATH lacks it, and else the
// cursor-wrap on PATH. With neither, or with CURSOR_WRAP_DISABLE=1, they run
// the real command: a wrapper moved or removed later never breaks the
// command it stood in for. An empty wrapper, or one that is not absolute or
// holds a quote, a backslash or a newline (no shell needs escaping then),
// leaves only the PATH lookup. Evaluating the script twice is harmless.
//
// # Aliases
//
// bash and zsh expand an alias in command position while parsing, so an alias
// named like a function would break `NAME() {…}` (zsh: "defining function
// based on alias") and, left in place, would shadow the function. The script
// unaliases each name and uses the `function NAME {` form, whose name is never
// alias-expanded: zsh parses the whole eval'd text before the unalias runs.
// In fish an alias is a function, which the definition replaces.
//
// # fish
//
// The functions need fish 3.1 or later, for `VAR=value command`. An empty
// argument survives in $argv as it does in "$@".
func Script(shell, wrapper string, agents []string) (string, error) {
	if !embeddable(wrapper) {
		wrapper = ""
	}
	var fn string
	switch shell {
	case "bash":
		// bash's type -P answers from its command hash, which still names a
		// cursor-wrap since removed (an uninstall in an open shell): assigning
		// PATH in the command substitution empties the hash there, so the
		// lookup searches PATH afresh, and the path found is the one run.
		fn = posixFunc(`[ -x "$(PATH=$PATH type -P cursor-wrap)" ]`, `"$(PATH=$PATH type -P cursor-wrap)"`, wrapper != "")
	case "zsh":
		fn = posixFunc("whence -p cursor-wrap >/dev/null 2>&1", "cursor-wrap", wrapper != "")
	case "fish":
		fn = fishFunc(wrapper != "")
	default:
		return "", fmt.Errorf("%w %q; supported shells: %s", ErrUnknownShell, shell, strings.Join(shells, ", "))
	}
	if len(agents) == 0 {
		agents = []string{"cursor"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# cursor-wrap shell-init %s: `command NAME` or CURSOR_WRAP_DISABLE=1 runs the real NAME.\n", shell)
	var done []string
	for _, agent := range agents {
		if slices.Contains(done, agent) {
			continue
		}
		done = append(done, agent)
		p, err := profileNamed(agent)
		if err != nil {
			return "", err
		}
		for _, name := range p.Binaries {
			// One pass: a path holding NAME stays as it is.
			b.WriteString(strings.NewReplacer("NAME", name, "PROFILE", agent, "WRAPPER", wrapper).Replace(fn))
		}
	}
	return b.String(), nil
}

// embeddable tells whether path can stand between single quotes in bash,
// zsh and fish alike, meaning itself.
func embeddable(path string) bool {
	return filepath.IsAbs(path) && !strings.ContainsAny(path, "'\\\n")
}

// wrapperTest starts the test that the embedded wrapper can run, in every
// shell's text; EmbeddedWrapper finds the path after it.
const wrapperTest = "-x '"

// EmbeddedWrapper returns the cursor-wrap path embedded in the text of one
// of Script's functions, as a shell prints it back (`declare -f` in bash,
// `functions` in zsh and fish), or "" when it holds none.
func EmbeddedWrapper(function string) string {
	_, rest, ok := strings.Cut(function, wrapperTest)
	if !ok {
		return ""
	}
	path, _, ok := strings.Cut(rest, "'")
	if !ok || !embeddable(path) {
		return ""
	}
	return path
}

// posixFunc is the bash and zsh function; onPath is the test that a
// cursor-wrap executable is on PATH (never a function or an alias), and
// found the command word that runs it. With embed, the function tries the
// wrapper at WRAPPER before the one on PATH.
func posixFunc(onPath, found string, embed bool) string {
	var b strings.Builder
	b.WriteString(`unalias NAME 2>/dev/null || true
function NAME {
  if [ "${CURSOR_WRAP_DISABLE-}" = 1 ]; then
    command NAME "$@"
`)
	if embed {
		b.WriteString(`  elif [ ` + wrapperTest + `WRAPPER' ]; then
    ` + FuncEnv + `=NAME command 'WRAPPER' --alias --agent PROFILE -- "$@"
`)
	}
	b.WriteString(`  elif ` + onPath + `; then
    ` + FuncEnv + `=NAME command ` + found + ` --alias --agent PROFILE -- "$@"
  else
    command NAME "$@"
  fi
}
`)
	return b.String()
}

// fishFunc is posixFunc for fish. It has no --wraps: a function already
// completes like the command it shares its name with, and fish ignores a
// function wrapping itself.
func fishFunc(embed bool) string {
	var b strings.Builder
	b.WriteString(`function NAME --description 'NAME through cursor-wrap'
    if test "$CURSOR_WRAP_DISABLE" = 1
        command NAME $argv
`)
	if embed {
		b.WriteString(`    else if test ` + wrapperTest + `WRAPPER'
        ` + FuncEnv + `=NAME command 'WRAPPER' --alias --agent PROFILE -- $argv
`)
	}
	b.WriteString(`    else if command -sq cursor-wrap
        ` + FuncEnv + `=NAME command cursor-wrap --alias --agent PROFILE -- $argv
    else
        command NAME $argv
    end
end
`)
	return b.String()
}
