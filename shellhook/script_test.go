package shellhook

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"cursor-wrap/stream"
)

func TestScriptErrors(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"", "sh", "Bash", "pwsh"} {
		_, err := Script(shell, "", nil)
		if !errors.Is(err, ErrUnknownShell) || !strings.Contains(err.Error(), "bash, zsh, fish") {
			t.Errorf("Script(%q): %v, want ErrUnknownShell listing bash, zsh, fish", shell, err)
		}
	}
	_, err := Script("bash", "/usr/bin/cursor-wrap", []string{"cursor", "aider"})
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), `"aider"; known agents: cursor, claude, codex, gemini, opencode`) {
		t.Errorf("unknown agent: %v", err)
	}
}

func TestScriptFunctions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agents []string
		want   []string
	}{
		{nil, []string{"cursor-agent", "agent"}},
		{[]string{}, []string{"cursor-agent", "agent"}},
		{[]string{"claude"}, []string{"claude"}},
		{[]string{"codex", "cursor", "codex"}, []string{"codex", "cursor-agent", "agent"}},
		{Agents(), []string{"cursor-agent", "agent", "claude", "codex", "gemini", "opencode"}},
	} {
		for _, shell := range Shells() {
			script, err := Script(shell, "/opt/cursor-wrap", c.agents)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for line := range strings.Lines(script) {
				if f := strings.Fields(line); len(f) > 1 && f[0] == "function" {
					got = append(got, f[1])
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s %q defines %q, want %q", shell, c.agents, got, c.want)
			}
		}
	}
}

func TestBinaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agent, invoked string
		want           []string
	}{
		{"cursor", "", []string{"cursor-agent", "agent"}},
		{"cursor", "cursor-agent", []string{"cursor-agent", "agent"}},
		{"cursor", "agent", []string{"agent", "cursor-agent"}},
		{"cursor", "claude", []string{"cursor-agent", "agent"}},
		{"claude", "claude", []string{"claude"}},
		{"opencode", "", []string{"opencode"}},
	} {
		p, err := stream.ProfileNamed(c.agent)
		if err != nil {
			t.Fatal(err)
		}
		if got := Binaries(p, c.invoked); !slices.Equal(got, c.want) {
			t.Errorf("Binaries(%s, %q) = %q; want %q", c.agent, c.invoked, got, c.want)
		}
	}
	if _, _, err := FindAgent("aider", "", "", "", ""); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("FindAgent(aider): %v, want ErrUnknownAgent", err)
	}
	// The profile must not be changed through a returned slice.
	names := Binaries(stream.Cursor, "agent")
	names[0] = "x"
	if got := Binaries(stream.Cursor, ""); got[0] != "cursor-agent" {
		t.Errorf("Binaries shares its profile's slice: %q", got)
	}
}

// TestScriptEmbedding checks which wrapper paths the functions embed: an
// absolute one that needs no escaping in any shell, and nothing else.
func TestScriptEmbedding(t *testing.T) {
	t.Parallel()
	for wrapper, embedded := range map[string]bool{
		"/home/me/.local/bin/cursor-wrap":        true,
		"/Users/Me Too/bin/cursor-wrap":          true,
		"/opt/NAME/PROFILE/$x/`y`/*/cursor-wrap": true,
		"":                                       false,
		"bin/cursor-wrap":                        false,
		"/it's/cursor-wrap":                      false,
		`/back\slash/cursor-wrap`:                false,
		"/new\nline/cursor-wrap":                 false,
	} {
		for _, shell := range Shells() {
			script, err := Script(shell, wrapper, []string{"claude"})
			if err != nil {
				t.Fatal(err)
			}
			got := EmbeddedWrapper(script)
			if embedded && got != wrapper || !embedded && got != "" {
				t.Errorf("%s, wrapper %q: embedded %q", shell, wrapper, got)
			}
			// bash runs the path its fresh PATH search found: "$(…)".
			if n := strings.Count(script, "cursor-wrap --alias --agent claude") + strings.Count(script, "cursor-wrap)\" --alias --agent claude"); n != 1 {
				t.Errorf("%s, wrapper %q: %d calls of cursor-wrap by name, want 1 (the PATH fallback)\n%s", shell, wrapper, n, script)
			}
		}
	}
}

func ExampleScript() {
	script, err := Script("fish", "/home/me/.local/bin/cursor-wrap", []string{"claude"})
	if err != nil {
		panic(err)
	}
	fmt.Print(script)
	// Output:
	// # cursor-wrap shell-init fish: `command NAME` or CURSOR_WRAP_DISABLE=1 runs the real NAME.
	// function claude --description 'claude through cursor-wrap'
	//     if test "$CURSOR_WRAP_DISABLE" = 1
	//         command claude $argv
	//     else if test -x '/home/me/.local/bin/cursor-wrap'
	//         CURSOR_WRAP_SHELL_FUNC=claude command '/home/me/.local/bin/cursor-wrap' --alias --agent claude -- $argv
	//     else if command -sq cursor-wrap
	//         CURSOR_WRAP_SHELL_FUNC=claude command cursor-wrap --alias --agent claude -- $argv
	//     else
	//         command claude $argv
	//     end
	// end
}
