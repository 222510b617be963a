package stream

import (
	"slices"
	"testing"
)

func TestCursorArgs(t *testing.T) {
	t.Parallel()
	p := Cursor
	for _, tc := range []struct {
		args   []string
		prompt bool
		mode   Mode
	}{
		{[]string{"hello"}, true, Interactive},
		{[]string{"-p", "hello"}, true, Bytes},
		{[]string{"-p", "--output-format", "stream-json", "hi"}, true, Events},
		{[]string{"--print", "--output-format=stream-json"}, false, Events},
		{[]string{"-p", "--output-format", "json", "--model", "gpt-5"}, false, Bytes},
		{[]string{"--model", "x", "--api-key", "k", "--workspace", "/w", "--resume", "id", "-p"}, false, Bytes},
		{[]string{"-p", "--", "-not-a-flag"}, true, Bytes},
		{[]string{"--help"}, false, Interactive},
		{[]string{"login"}, true, Interactive},
	} {
		if got := p.HasPrompt(tc.args); got != tc.prompt {
			t.Errorf("HasPrompt(%q) = %v", tc.args, got)
		}
		if got := p.ModeOf(tc.args); got != tc.mode {
			t.Errorf("ModeOf(%q) = %v, want %v", tc.args, got, tc.mode)
		}
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    *Profile
		args []string
		want string
	}{
		{Cursor, []string{"-p", "--output-format", "stream-json", "fix the tests"}, "fix the tests"},
		{Cursor, []string{"--model", "gpt-5", "--api-key", "k", "-p"}, ""},
		{Cursor, []string{"-p", "--", "-a", "b"}, "-a b"},
		{Cursor, []string{"-p", "-"}, "-"}, // "-" alone is a word, not a flag
		{Claude, []string{"-p", "--allowedTools", "Bash", "Read", "--", "hi"}, "hi"},
		{Codex, []string{"exec", "--json", "hi there"}, "hi there"},
		{Gemini, []string{"--prompt", "hi", "-o", "stream-json"}, "hi"},
	} {
		if got := tc.p.Prompt(tc.args); got != tc.want {
			t.Errorf("%s Prompt(%q) = %q, want %q", tc.p.Name, tc.args, got, tc.want)
		}
	}
}

func TestHeadless(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		d    Direct
		want []string
	}{
		{[]string{"say hi"}, Direct{}, []string{"--print", "--output-format", "stream-json", "say hi"}},
		{[]string{"-p", "--output-format=stream-json", "x"}, Direct{}, []string{"-p", "--output-format=stream-json", "x"}},
		{[]string{"-p", "x"}, Direct{Model: "auto", Force: true, Workspace: "/w"},
			[]string{"--output-format", "stream-json", "--force", "--model", "auto", "--workspace", "/w", "-p", "x"}},
		{[]string{"-f", "-m", "gpt", "--workspace=/a", "x"}, Direct{Model: "auto", Force: true, Workspace: "/w"},
			[]string{"--print", "--output-format", "stream-json", "-f", "-m", "gpt", "--workspace=/a", "x"}},
	} {
		if got := Cursor.Headless(tc.args, tc.d); !slices.Equal(got, tc.want) {
			t.Errorf("Headless(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestResume(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--print", "--output-format", "stream-json", "--model", "m", "fix the bug"},
			[]string{"--print", "--output-format", "stream-json", "--model", "m", "--resume", "S", "--", "continue"}},
		{[]string{"-p", "--resume", "OLD", "--", "first prompt"},
			[]string{"-p", "--resume", "S", "--", "continue"}},
		{[]string{"-p", "--resume=OLD"}, []string{"-p", "--resume", "S", "--", "continue"}},
	} {
		if got := Cursor.Resume(tc.args, "S", "continue"); !slices.Equal(got, tc.want) {
			t.Errorf("Resume(%q) = %q, want %q", tc.args, got, tc.want)
		}
		// A restart prompt that starts with "-" is still the prompt.
		want := append(slices.Clone(tc.want[:len(tc.want)-1]), "--force")
		if got := Cursor.Resume(tc.args, "S", "--force"); !slices.Equal(got, want) {
			t.Errorf("Resume(%q) with prompt --force = %q, want %q", tc.args, got, want)
		}
	}
}

func TestWithModel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    *Profile
		args []string
		want []string
	}{
		{Cursor, []string{"--print", "--model", "gpt-5", "fix it"}, []string{"--model", "sonnet-4", "--print", "fix it"}},
		{Cursor, []string{"-p", "-m=gpt-5", "--", "--model x"}, []string{"--model", "sonnet-4", "-p", "--", "--model x"}},
		{Cursor, []string{"-p", "fix it"}, []string{"--model", "sonnet-4", "-p", "fix it"}},
		{Codex, []string{"exec", "--json", "--model", "o3", "fix it"}, []string{"exec", "--model", "sonnet-4", "--json", "fix it"}},
	} {
		got := tc.p.WithModel(tc.args, "sonnet-4")
		if !slices.Equal(got, tc.want) || tc.p.Model(got) != "sonnet-4" {
			t.Errorf("%s WithModel(%q) = %q, want %q", tc.p.Name, tc.args, got, tc.want)
		}
	}
}
