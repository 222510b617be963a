package stream

import (
	"slices"
	"strings"
	"testing"
)

func TestParseFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec  string
		names []string
		arity Arity
	}{
		{"-p, --print", []string{"-p", "--print"}, NoValue},
		{"--model <model>", []string{"--model"}, OneValue},
		{"-r, --resume [value]", []string{"-r", "--resume"}, OptionalValue},
		{"--allowedTools, --allowed-tools <tools...>", []string{"--allowedTools", "--allowed-tools"}, Variadic},
		{"--resume-session-at <message id>", []string{"--resume-session-at"}, OneValue},
		{"--cloud [description|session_id|url]", []string{"--cloud"}, OptionalValue},
		{"-d2e, --debug-to-stderr", []string{"-d2e", "--debug-to-stderr"}, NoValue},
	} {
		f, err := parseFlag(tc.spec)
		if err != nil || !slices.Equal(f.Names, tc.names) || f.Arity != tc.arity {
			t.Errorf("parseFlag(%q) = %+v, %v; want %q, %v", tc.spec, f, err, tc.names, tc.arity)
		}
	}
	for _, bad := range []string{"print", "--model model", "--model <model", "-p, print", "--x=y"} {
		if f, err := parseFlag(bad); err == nil {
			t.Errorf("parseFlag(%q) = %+v, want an error", bad, f)
		}
	}
}

// TestValueFlagsKeepTheirValues: each agent's own value flags, followed by
// their value and then a prompt: the value is not the prompt, a run with
// the value alone reads its prompt from stdin, and a restart keeps the flag
// with its value. Claude's --max-budget-usd, --permission-prompt-tool,
// --json-schema and --setting-sources and cursor-agent's --name were read
// as the prompt before the flag tables.
func TestValueFlagsKeepTheirValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p           *Profile
		flag, value string
	}{
		{Claude, "--max-budget-usd", "5"},
		{Claude, "--permission-prompt-tool", "mcp__perm__ask"},
		{Claude, "--json-schema", `{"type":"object"}`},
		{Claude, "--setting-sources", "user,project"},
		{Claude, "-n", "nightly"},
		{Claude, "--max-turns", "3"},
		{Cursor, "--name", "nightly"},
		{Cursor, "--worktree-base", "main"},
		{Codex, "--local-provider", "ollama"},
		{Gemini, "--worktree", "feature"},
		{OpenCode, "--command", "review"},
	} {
		args := []string{tc.flag, tc.value, "fix the tests"}
		if got := tc.p.Prompt(args); got != "fix the tests" {
			t.Errorf("%s Prompt(%q) = %q", tc.p.Name, args, got)
		}
		if tc.p.HasPrompt(args[:2]) {
			t.Errorf("%s HasPrompt(%q): the value read as the prompt", tc.p.Name, args[:2])
		}
		if !tc.p.CanResume() {
			continue
		}
		resumed := tc.p.Resume(args, "S", "go on")
		if i := slices.Index(resumed, tc.flag); i < 0 || i+1 >= len(resumed) || resumed[i+1] != tc.value || slices.Contains(resumed, "fix the tests") {
			t.Errorf("%s Resume(%q) = %q: want the flag and its value kept, the prompt replaced", tc.p.Name, args, resumed)
		}
	}
}

// TestOptionalValue holds the rule for an optional-value flag followed by
// a word (see OptionalValue): the word is its value, as the agent reads
// it; after "--" it is the prompt; a flag after it is not its value.
func TestOptionalValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p      *Profile
		args   []string
		prompt string
		resume []string
	}{
		{Claude, []string{"-p", "--resume", "fix it"}, "", []string{"-p", "--resume", "S", "--", "go on"}},
		{Claude, []string{"-p", "--resume", "--", "fix it"}, "fix it", []string{"-p", "--resume", "S", "--", "go on"}},
		{Claude, []string{"-r", "-p", "fix it"}, "fix it", []string{"-p", "--resume", "S", "--", "go on"}},
		{Claude, []string{"-p", "-r", "abc", "fix it"}, "fix it", []string{"-p", "--resume", "S", "--", "go on"}},
		{Claude, []string{"-p", "--debug", "api", "fix it"}, "fix it", nil},
		{Claude, []string{"-p", "--debug=api,hooks", "fix it"}, "fix it", nil},
		{Cursor, []string{"-p", "--resume", "fix it"}, "", []string{"-p", "--resume", "S", "--", "go on"}},
		{Cursor, []string{"-p", "-w", "fix it"}, "", nil},
	} {
		if got := tc.p.Prompt(tc.args); got != tc.prompt {
			t.Errorf("%s Prompt(%q) = %q, want %q", tc.p.Name, tc.args, got, tc.prompt)
		}
		if got := tc.p.Resume(tc.args, "S", "go on"); tc.resume != nil && !slices.Equal(got, tc.resume) {
			t.Errorf("%s Resume(%q) = %q, want %q", tc.p.Name, tc.args, got, tc.resume)
		}
	}
}

// TestFlagsDecideTheMode: the alias mode's reading of -p and the output
// format goes through the table too: a value the table knows is not the
// subcommand, nor the prompt, nor a flag.
func TestFlagsDecideTheMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    *Profile
		args []string
		want Mode
	}{
		// codex's -p is --profile, a value flag: not claude's print.
		{Codex, []string{"--local-provider", "ollama", "exec", "--json", "hi"}, Events},
		{Codex, []string{"-p", "work", "exec", "--json", "hi"}, Events},
		{Claude, []string{"--setting-sources", "user", "-p", "--output-format", "stream-json", "hi"}, Events},
		{Claude, []string{"--append-system-prompt", "-p", "--output-format", "stream-json"}, Interactive},
		{Claude, []string{"-p", "--output-format=stream-json"}, Events},
		{Gemini, []string{"--policy", "a", "b", "-o", "stream-json", "-p", "hi"}, Events},
	} {
		if got := tc.p.ModeOf(tc.args); got != tc.want {
			t.Errorf("%s ModeOf(%q) = %v, want %v", tc.p.Name, tc.args, got, tc.want)
		}
	}
}

// FuzzArgs feeds any command line to every profile's reading of it: no
// panic, the prompt's words are arguments given, a restart's arguments end
// with the session and its prompt after "--", and direct mode keeps every
// argument given, in order.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		"-p\x00--resume\x00fix it",
		"--allowedTools\x00Bash\x00Read\x00--\x00hi",
		"exec\x00--json\x00-i\x00a.png\x00b.png\x00hi",
		"--max-budget-usd\x005\x00--json-schema={}\x00-r\x00\x00-",
		"run\x00-f\x00x\x00--format=json\x00--\x00--model",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		for _, p := range profiles {
			for _, w := range p.Positionals(args) {
				if !slices.Contains(args, w) {
					t.Fatalf("%s: prompt word %q is no argument of %q", p.Name, w, args)
				}
			}
			if p.CanResume() {
				r := p.Resume(args, "S", "go on")
				if n := len(r); n < 4 || !slices.Equal(r[n-2:], []string{"--", "go on"}) {
					t.Fatalf("%s: Resume(%q) = %q", p.Name, args, r)
				}
			}
			h := p.Headless(args, Direct{Model: "m", Workspace: "/w", Force: true})
			if p.promptIsValue {
				continue // the positional prompt becomes the print flag's value
			}
			i := 0
			for _, a := range h {
				if i < len(args) && a == args[i] {
					i++
				}
			}
			if i != len(args) {
				t.Fatalf("%s: Headless(%q) = %q loses an argument", p.Name, args, h)
			}
		}
	})
}

func TestResumes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    *Profile
		args []string
		want bool
	}{
		{Codex, []string{"exec", "--json", "resume", "S", "--", "go on"}, true},
		{Codex, []string{"exec", "--json", "--", "resume"}, false},
		{Claude, []string{"-p", "-r", "S"}, true},
		{Claude, []string{"-p", "fix it"}, false},
		{Cursor, []string{"--resume=S", "-p"}, true},
		{Cursor, []string{"-p", "--", "--resume"}, false},
		{Gemini, []string{"-p", "hi"}, false},
	} {
		if got := tc.p.Resumes(tc.args); got != tc.want {
			t.Errorf("%s Resumes(%q) = %v", tc.p.Name, tc.args, got)
		}
	}
}

// TestResumedID reads the id a resume names, in each agent's way of
// naming it, and none where the words only look like a resume.
func TestResumedID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    *Profile
		args []string
		want string
	}{
		{Codex, []string{"exec", "--json", "resume", "S", "--", "go on"}, "S"},
		{Codex, []string{"exec", "resume"}, ""},
		{Codex, []string{"exec", "resume", "--", "S"}, ""},
		{Codex, []string{"exec", "--json", "--", "resume", "S"}, ""},
		{Codex, []string{"exec", "fix", "resume", "S"}, ""},
		{Claude, []string{"-p", "-r", "S"}, "S"},
		{Claude, []string{"-p", "fix it"}, ""},
		{Cursor, []string{"--resume=S", "-p"}, "S"},
		{Cursor, []string{"-p", "--resume", "S", "--", "continue"}, "S"},
		{Cursor, []string{"-p", "--", "--resume", "S"}, ""},
		{Gemini, []string{"-p", "hi"}, ""},
	} {
		if got := tc.p.ResumedID(tc.args); got != tc.want {
			t.Errorf("%s ResumedID(%q) = %q, want %q", tc.p.Name, tc.args, got, tc.want)
		}
	}
}
