package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// completionCases are what a user types before TAB (the last word is the
// one completed) and the completions each shell must offer.
var completionCases = []struct {
	words []string
	want  []string
}{
	{[]string{"--idle"}, []string{"--idle-timeout"}},
	{[]string{"insp"}, []string{"inspect"}},
	{[]string{"--sta"}, []string{"--status"}},
	{[]string{"--status", "--agent-b"}, []string{"--agent-bin"}},
	{[]string{"--log-level", ""}, []string{"debug", "error", "info", "warn"}},
	{[]string{"--agent", "c"}, []string{"claude", "codex", "cursor"}},
	{[]string{"shell-init", "f"}, []string{"fish"}},
	{[]string{"completion", ""}, []string{"bash", "fish", "zsh"}},
	{[]string{"doctor", "--shell", "z"}, []string{"zsh"}},
	{[]string{"doctor", "--agent-b"}, []string{"--agent-bin"}},
	{[]string{"inspect", "--last"}, []string{"--last", "--last-hang"}},
	{[]string{"sessions", "--h"}, []string{"--hung"}},
	{[]string{"mcp", "--log-level", "w"}, []string{"warn"}},
	{[]string{"shell-init", "bash", "--ag"}, []string{"--agents"}},
	{[]string{"--idle-timeout", ""}, nil},
	{[]string{"--", "--idle"}, nil},
}

// TestCompletionBash loads the script in a real bash and drives the
// completion function the way readline does, through COMP_WORDS and
// COMP_CWORD.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	var prog strings.Builder
	prog.WriteString(`eval "$(cursor-wrap completion bash)"` + "\ncomplete -p cursor-wrap\n")
	prog.WriteString(`comp() { COMP_WORDS=(cursor-wrap "$@"); COMP_CWORD=$#; COMPREPLY=(); _cursor_wrap; printf '%s\n' "${COMPREPLY[*]}"; }` + "\n")
	for _, c := range completionCases {
		prog.WriteString("comp")
		for _, w := range c.words {
			prog.WriteString(" '" + w + "'")
		}
		prog.WriteString("\n")
	}
	// COMP_WORDBREAKS cuts --log-level=i into three words.
	prog.WriteString("comp --log-level = i\n")
	out := runShell(t, "bash", []string{"--norc", "--noprofile", "-c", prog.String()})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(completionCases)+2 || lines[0] != "complete -o default -F _cursor_wrap cursor-wrap" {
		t.Fatalf("output:\n%s", out)
	}
	for i, c := range completionCases {
		got := strings.Fields(lines[i+1])
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("cursor-wrap %q: %q, want %q", c.words, got, c.want)
		}
	}
	if got := lines[len(lines)-1]; got != "info" {
		t.Errorf("cursor-wrap --log-level=i: %q", got)
	}
}

// TestCompletionFish asks a real fish, after loading the script, for its
// completions of each command line (complete -C).
func TestCompletionFish(t *testing.T) {
	t.Parallel()
	var prog strings.Builder
	prog.WriteString("cursor-wrap completion fish | source\n")
	for _, c := range completionCases {
		prog.WriteString("complete -C '" + strings.Join(append([]string{"cursor-wrap"}, c.words...), " ") + "'; echo @@\n")
	}
	prog.WriteString("complete -C 'cursor-wrap --log-level=i'; echo @@\n")
	out := runShell(t, "fish", []string{"--no-config", "-c", prog.String()})
	blocks := strings.Split(out, "@@\n")
	if len(blocks) != len(completionCases)+2 {
		t.Fatalf("output:\n%s", out)
	}
	for i, c := range completionCases {
		got := fishWords(blocks[i])
		if c.want == nil && c.words[len(c.words)-1] == "" {
			got = nil // fish offers files where the wrapper has nothing to say.
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("cursor-wrap %q: %q, want %q\n%s", c.words, got, c.want, blocks[i])
		}
	}
	if got := fishWords(blocks[len(completionCases)]); !slices.Equal(got, []string{"--log-level=info"}) {
		t.Errorf("cursor-wrap --log-level=i: %q", got)
	}
	if !strings.Contains(blocks[0], "--idle-timeout\tlongest silence with no tool call running\n") {
		t.Errorf("no description: %q", blocks[0])
	}
}

// fishWords are the completions of one complete -C answer, without their
// descriptions, sorted.
func fishWords(block string) []string {
	var words []string
	for line := range strings.Lines(block) {
		w, _, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		words = append(words, w)
	}
	slices.Sort(words)
	return words
}

// TestCompletionZsh loads the script after compinit, as a .zshrc has it,
// in an interactive zsh under a pseudo-terminal, presses TAB after each
// command line, and records what zsh's completion system adds: compadd is
// wrapped to copy the matches that survive zsh's own filtering to a file.
func TestCompletionZsh(t *testing.T) {
	t.Parallel()
	zsh := shellFor(t, "zsh")
	dir := t.TempDir()
	out := filepath.Join(dir, "matches")
	rc := `autoload -U compinit && compinit -u -D
eval "$(cursor-wrap completion zsh)"
print -r -- "comps: $_comps[cursor-wrap]" > $CW_OUT.comps
compadd() {
  # The calls that only ask (-O, -A, -D) are _describe's own.
  if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi
  local -a hits
  builtin compadd -O hits "$@"
  print -rl -- $hits >> $CW_OUT
  builtin compadd "$@"
}
PS1='> '
`
	if err := os.WriteFile(filepath.Join(dir, ".zshrc"), []byte(rc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, zsh, "-i")
	cmd.Env = []string{"HOME=" + dir, "ZDOTDIR=" + dir, "TERM=xterm", "LANG=C.UTF-8", "CW_OUT=" + out,
		"PATH=" + filepath.Dir(wrapperBin) + ":/usr/bin:/bin", "GORACE=atexit_sleep_ms=0"}
	term, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	var screen syncBuffer
	go screen.ReadFrom(term)
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		term.Close()
	})
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if ctx.Err() != nil {
				t.Fatalf("waiting for %s; the terminal shows:\n%q", what, screen.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The prompt is drawn once compinit and the script are loaded.
	term.WriteString("print RE''ADY\r")
	waitFor("the shell", func() bool { return strings.Contains(screen.String(), "READY\r\n") })
	if b, _ := os.ReadFile(out + ".comps"); string(b) != "comps: _cursor_wrap\n" {
		t.Errorf("_comps: %q", b)
	}
	for _, c := range completionCases {
		if c.want == nil {
			continue // Files, or nothing: no match to wait for.
		}
		os.WriteFile(out, nil, 0o644)
		// ^U clears the line; TAB completes.
		term.WriteString("\x15cursor-wrap " + strings.Join(c.words, " ") + "\t")
		var got []string
		waitFor("the matches of "+strings.Join(c.words, " "), func() bool {
			b, _ := os.ReadFile(out)
			got = strings.Fields(string(b))
			return len(got) > 0
		})
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("cursor-wrap %q: %q, want %q", c.words, got, c.want)
		}
	}
}

// syncBuffer is a bytes.Buffer that a reader goroutine fills while the
// test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) ReadFrom(f *os.File) {
	p := make([]byte, 4096)
	for {
		n, err := f.Read(p)
		b.mu.Lock()
		b.buf.Write(p[:n])
		b.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runShell runs a shell program with the wrapper on PATH.
func runShell(t *testing.T, shell string, args []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, shellFor(t, shell), args...)
	cmd.Env = append(testEnv(), "PATH="+filepath.Dir(wrapperBin)+":/usr/bin:/bin", "TERM=xterm")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("%s: %v\nstderr: %s", shell, err, stderr.String())
	}
	return stdout.String()
}
