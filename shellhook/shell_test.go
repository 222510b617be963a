package shellhook

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
	"cursor-wrap/stream"
)

// awkward is what a user might type after cursor-agent; every byte of it must
// reach the wrapper.
var awkward = []string{
	"-p", "--output-format", "stream-json", "a b", "", "*", "$HOME",
	"line1\nline2", "--leading-dash", "it's", `"dq"`, `back\slash`, "--",
	"tab\there", "ünï", "\xff\xfe", "$(echo x)", "`echo y`", "~", "{a,b}",
	"a;b|c&d", "-",
}

const stdinPayload = "prompt from stdin\n\x00\xff binary\nno newline at end"

// shellPath finds a shell to test in; a missing one skips the test, or
// fails it with REQUIRE_SHELLS=1 (set in CI, macOS included) or in CI on
// Linux.
func shellPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("REQUIRE_SHELLS") == "1" {
			t.Fatalf("%s is required (REQUIRE_SHELLS=1): %v", name, err)
		}
		testenv.SkipOutsideCI(t, "%s not installed: %v", name, err)
	}
	return p
}

// dialect is what the tests need to write a program in one shell.
type dialect struct {
	args   []string // before the -c program
	setup  string   // makes the alias test bite
	source string   // evaluates $SHELLHOOK_TEST_SCRIPT
	after  string   // exits with the call's status, printing LEAK if FuncEnv stayed set
	quote  func(string) string
}

const posixAfter = "\ns=$?; [ -z \"${" + FuncEnv + "+x}\" ] || echo LEAK; exit $s"

func posixQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var dialects = map[string]dialect{
	"bash": {
		args:   []string{"--norc", "--noprofile"},
		setup:  "shopt -s expand_aliases\n",
		source: `eval "$SHELLHOOK_TEST_SCRIPT"` + "\n",
		after:  posixAfter,
		quote:  posixQuote,
	},
	"zsh": {
		args:   []string{"-f"},
		source: `eval "$SHELLHOOK_TEST_SCRIPT"` + "\n",
		after:  posixAfter,
		quote:  posixQuote,
	},
	"fish": {
		source: `printf '%s\n' "$SHELLHOOK_TEST_SCRIPT" | source` + "\n",
		after:  "\nset s $status; set -q " + FuncEnv + "; and echo LEAK; exit $s",
		quote: func(s string) string {
			return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
		},
	},
}

// embeddedName is the stub wrapper whose path the functions embed; its name
// tells its runs from those of the cursor-wrap on PATH.
const embeddedName = "cursor-wrap-embedded"

// fakeBins makes a wrapper directory holding the stub cursor-wrap, the stub
// embedded wrapper in a directory whose name needs quoting (and holds the
// word NAME, which the script's template replaces), and a directory of fake
// real agents, all symlinks to this test binary.
func fakeBins(t *testing.T) (wrapDir, embedded, realDir string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapDir, realDir = t.TempDir(), t.TempDir()
	embedded = filepath.Join(t.TempDir(), "my NAME $dir *", embeddedName)
	if err := os.Mkdir(filepath.Dir(embedded), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{filepath.Join(wrapDir, "cursor-wrap"): self, embedded: self}
	for _, p := range stream.Profiles() {
		for _, name := range p.Binaries {
			links[filepath.Join(realDir, name)] = self
		}
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return wrapDir, embedded, realDir
}

func TestScriptInShells(t *testing.T) {
	t.Parallel()
	wrapDir, embedded, realDir := fakeBins(t)
	gone := filepath.Join(t.TempDir(), "removed", "cursor-wrap")
	all := Agents()

	type tc struct {
		name      string
		agents    []string
		alias     bool   // a same-named alias exists before the script is evaluated
		noWrapper bool   // cursor-wrap is not on PATH
		embed     string // the wrapper path the functions embed
		prefix    string // typed before the function name
		fn        string
		exit      int
		ran       string   // the binary that must have run
		argv      []string // what it gets before awkward
		fnEnv     string   // FuncEnv as it sees it; "" for unset
	}
	viaCursor := []string{"--alias", "--agent", "cursor", "--"}
	wrapped := func(name, fn, agent string, exit int) tc {
		return tc{name: name, agents: all, fn: fn, exit: exit, ran: "cursor-wrap",
			argv: []string{"--alias", "--agent", agent, "--"}, fnEnv: fn}
	}
	cases := []tc{
		wrapped("cursor-agent/exit 0", "cursor-agent", "cursor", 0),
		wrapped("cursor-agent/exit 3", "cursor-agent", "cursor", 3),
		wrapped("cursor-agent/exit 124", "cursor-agent", "cursor", 124),
		wrapped("cursor-agent/exit 255", "cursor-agent", "cursor", 255),
		wrapped("agent", "agent", "cursor", 3),
		wrapped("claude", "claude", "claude", 1),
		wrapped("codex", "codex", "codex", 0),
		wrapped("gemini", "gemini", "gemini", 0),
		wrapped("opencode", "opencode", "opencode", 0),
		{name: "disable=0 still wraps", prefix: "CURSOR_WRAP_DISABLE=0 ", fn: "cursor-agent",
			ran: "cursor-wrap", argv: viaCursor, fnEnv: "cursor-agent"},
		{name: "default agents", fn: "agent", ran: "cursor-wrap", argv: viaCursor, fnEnv: "agent"},
		{name: "alias", alias: true, fn: "cursor-agent", exit: 5,
			ran: "cursor-wrap", argv: viaCursor, fnEnv: "cursor-agent"},
		{name: "command", prefix: "command ", fn: "cursor-agent", exit: 5, ran: "cursor-agent"},
		{name: "disabled", prefix: "CURSOR_WRAP_DISABLE=1 ", fn: "cursor-agent", exit: 6, ran: "cursor-agent"},
		{name: "disabled agent", prefix: "CURSOR_WRAP_DISABLE=1 ", fn: "agent", ran: "agent"},
		{name: "no wrapper", noWrapper: true, fn: "cursor-agent", exit: 7, ran: "cursor-agent"},
		{name: "no wrapper agent", noWrapper: true, fn: "agent", ran: "agent"},
		{name: "embedded", embed: embedded, fn: "cursor-agent", exit: 3,
			ran: embeddedName, argv: viaCursor, fnEnv: "cursor-agent"},
		{name: "embedded, none on PATH", embed: embedded, noWrapper: true, fn: "agent", exit: 124,
			ran: embeddedName, argv: viaCursor, fnEnv: "agent"},
		{name: "embedded gone", embed: gone, fn: "cursor-agent", exit: 4,
			ran: "cursor-wrap", argv: viaCursor, fnEnv: "cursor-agent"},
		{name: "embedded gone, none on PATH", embed: gone, noWrapper: true, fn: "cursor-agent", exit: 5,
			ran: "cursor-agent"},
		{name: "embedded, disabled", embed: embedded, prefix: "CURSOR_WRAP_DISABLE=1 ", fn: "cursor-agent", exit: 6,
			ran: "cursor-agent"},
		{name: "embedded, command", embed: embedded, prefix: "command ", fn: "agent", ran: "agent"},
	}

	for _, shell := range Shells() {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			bin := shellPath(t, shell)
			d := dialects[shell]
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					script, err := Script(shell, c.embed, c.agents)
					if err != nil {
						t.Fatal(err)
					}
					var prog strings.Builder
					prog.WriteString(d.setup)
					if c.alias {
						prog.WriteString("alias " + c.fn + "='echo ALIAS'\n")
					}
					prog.WriteString(d.source + d.source) // Twice: idempotent.
					// zsh parses a whole -c program before running it: only an
					// eval'd call sees the alias, as a later command line would.
					call := c.prefix + c.fn
					for _, a := range awkward {
						call += " " + d.quote(a)
					}
					prog.WriteString("eval " + d.quote(call) + d.after)

					rec, home := t.TempDir(), t.TempDir()
					path := wrapDir + ":" + realDir
					if c.noWrapper {
						path = realDir
					}
					ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
					defer cancel()
					cmd := exec.CommandContext(ctx, bin, slices.Concat(d.args, []string{"-c", prog.String()})...)
					cmd.Dir = wrapDir // An unquoted * would expand to cursor-wrap.
					cmd.Env = []string{
						"PATH=" + path, "HOME=" + home, "LANG=C.UTF-8",
						"XDG_CONFIG_HOME=" + home + "/.config", "XDG_DATA_HOME=" + home + "/.local/share",
						recordEnv + "=" + rec, exitEnv + "=" + strconv.Itoa(c.exit),
						"SHELLHOOK_TEST_SCRIPT=" + script,
						// Under -race a stub would otherwise wait 1 s before exiting.
						"GORACE=atexit_sleep_ms=0",
					}
					cmd.Stdin = strings.NewReader(stdinPayload)
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					cmd.WaitDelay = 5 * time.Second
					err = cmd.Run()
					var exitErr *exec.ExitError
					if err != nil && !errors.As(err, &exitErr) {
						t.Fatal(err)
					}
					if strings.Contains(stdout.String(), "LEAK") {
						t.Errorf("%s stayed set in the shell after the call", FuncEnv)
					}
					if got := cmd.ProcessState.ExitCode(); got != c.exit {
						t.Errorf("exit status %d, want %d\nstdout: %q\nstderr: %s", got, c.exit, stdout.String(), stderr.String())
					}
					checkRecord(t, rec, c.ran, slices.Concat(c.argv, awkward), c.fnEnv)
				})
			}
		})
	}
}

// checkRecord asserts that exactly the binary ran, with argv, FuncEnv fnEnv
// ("" for unset) and all of stdinPayload.
func checkRecord(t *testing.T, dir, ran string, argv []string, fnEnv string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ran+".") {
			t.Errorf("%s ran; only %s should have", e.Name(), ran)
		}
	}
	read := func(ext string) string {
		b, err := os.ReadFile(filepath.Join(dir, ran+ext))
		if err != nil && !(ext == ".func" && errors.Is(err, os.ErrNotExist)) {
			t.Fatal(err)
		}
		return string(b)
	}
	var want strings.Builder
	for _, a := range argv {
		want.WriteString(a + "\x00")
	}
	if got := read(".argv"); got != want.String() {
		t.Errorf("%s got argv\n%q\nwant\n%q", ran, strings.Split(got, "\x00"), argv)
	}
	if got := read(".stdin"); got != stdinPayload {
		t.Errorf("%s got stdin %q, want %q", ran, got, stdinPayload)
	}
	if got := read(".func"); got != fnEnv {
		t.Errorf("%s got %s=%q, want %q", ran, FuncEnv, got, fnEnv)
	}
}
