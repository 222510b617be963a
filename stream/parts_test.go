package stream

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// capturesOf lists the streams an agent's CLI wrote that its profile is
// held to: testdata/agents/NAME-*.jsonl, and for cursor the transcripts in
// testdata.
func capturesOf(t *testing.T, p *Profile) []string {
	t.Helper()
	pattern := filepath.Join("testdata", "agents", p.Name+"-*.jsonl")
	if p == Cursor {
		pattern = filepath.Join("testdata", "*.jsonl")
	}
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no captures in %s (%v): add what its CLI writes for a plain answer and a tool call", p.Name, pattern, err)
	}
	return files
}

// TestEveryProfileFillsEveryPart holds each row of the profile list to
// what the rest of the wrapper derives from it: a name and the commands it
// is installed as (shell functions, --agent, config's agent), a reader
// that finds in its captures what the watchdog needs, its own errors and
// questions before the shared ones, when it reports usage, and a command
// line that direct mode can make headless and streaming. Adding an agent
// is one file and one row; this says what the file must hold.
func TestEveryProfileFillsEveryPart(t *testing.T) {
	t.Parallel()
	names, binaries := map[string]bool{}, map[string]string{}
	for _, p := range Profiles() {
		if !regexp.MustCompile(`^[a-z][a-z0-9]*$`).MatchString(p.Name) || names[p.Name] {
			t.Errorf("profile name %q: want one lowercase word, unique (it is --agent's value and config's agent)", p.Name)
		}
		names[p.Name] = true
		if len(p.Binaries) == 0 || p.Install == "" {
			t.Errorf("%s: the commands it is installed as (%q) and how to install it (%q) are needed by shell-init and doctor", p.Name, p.Binaries, p.Install)
		}
		for _, b := range p.Binaries {
			if other, dup := binaries[b]; dup {
				t.Errorf("%s: command %q is %s's too: ProfileFor could not tell them apart", p.Name, b, other)
			}
			binaries[b] = p.Name
		}

		if p.Parse == nil || len(p.phases) == 0 {
			t.Errorf("%s: no reader or no phase words", p.Name)
			continue
		}
		var session, terminal, answer, usage bool
		open := map[string]bool{}
		var closed int
		for _, file := range capturesOf(t, p) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range parseAll(p, data) {
				session = session || ev.SessionID != ""
				terminal = terminal || ev.Terminal
				answer = answer || ev.Answer != ""
				usage = usage || ev.Usage != nil
				for _, c := range ev.Started {
					open[c.ID] = true
				}
				for _, id := range ev.Ended {
					if open[id] {
						closed++
					}
				}
			}
		}
		if !session || !terminal || !answer || closed == 0 {
			t.Errorf("%s: its captures read as session %v, terminal event %v, answer %v, tool calls closed %d: the reader misses a part", p.Name, session, terminal, answer, closed)
		}
		if p.UsageTiming == UsageUnknown || !usage {
			t.Errorf("%s: usage timing %v, usage read from its captures %v: say when it reports usage, and read it", p.Name, p.UsageTiming, usage)
		}

		pats := p.ErrorPatterns()
		if own := len(pats) - len(networkErrors); own < 1 || !slices.EqualFunc(pats[own:], networkErrors, samePattern) {
			t.Errorf("%s: want its own error patterns, then the shared network errors last", p.Name)
		}
		if own := len(p.questions) - len(sharedQuestions); own < 1 || !slices.EqualFunc(p.questions[own:], sharedQuestions, sameQuestion) {
			t.Errorf("%s: want its own questions, then the shared ones last", p.Name)
		}

		checkFlagRoles(t, p)
		args := p.Headless([]string{"hello there"}, Direct{Model: "m", Workspace: "/w", Force: true})
		if p.ModeOf(args) != Events || p.Prompt(args) != "hello there" || p.Model(args) != "m" && len(p.modelFlags) > 0 {
			t.Errorf("%s: direct mode makes %q: want a headless streaming run of the prompt", p.Name, args)
		}
	}
}

func parseAll(p *Profile, data []byte) []Event {
	var evs []Event
	s := NewSplitter(DefaultKeep, func(l Line) { evs = append(evs, p.Parse(l)) })
	s.Write(data)
	s.Flush()
	return evs
}

func samePattern(a, b ErrorPattern) bool     { return a.Sample == b.Sample && a.Kind == b.Kind }
func sameQuestion(a, b QuestionPattern) bool { return a.Sample == b.Sample }

// TestAgentsDocTable keeps docs/agents.md's agent table equal to the
// profile list: one row per profile, in its order, each run as the
// profile's first command; every command a profile is installed as is
// named, and the shell-init line names every profile.
func TestAgentsDocTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var rows, runAs []string
	inTable := false
	for line := range strings.Lines(doc) {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		switch {
		case strings.HasPrefix(line, "| agent |"):
			inTable = true
		case !inTable || strings.HasPrefix(line, "|---"):
		case strings.HasPrefix(line, "|") && len(cells) > 1:
			rows = append(rows, strings.TrimSpace(cells[0]))
			runAs = append(runAs, strings.TrimSpace(cells[1]))
		default:
			inTable = false
		}
	}
	if !slices.Equal(rows, ProfileNames()) {
		t.Errorf("docs/agents.md's agent table lists %q; the profiles are %q", rows, ProfileNames())
	}
	for i, p := range Profiles() {
		if i < len(runAs) && !strings.HasPrefix(runAs[i], "`"+p.Binaries[0]+" ") {
			t.Errorf("docs/agents.md: %s is run as %s, not as its command %s", p.Name, runAs[i], p.Binaries[0])
		}
		for _, bin := range p.Binaries {
			if !strings.Contains(doc, "`"+bin+"`") {
				t.Errorf("docs/agents.md does not name %s's command `%s`", p.Name, bin)
			}
		}
	}
	if want := "shell-init bash --agents " + strings.Join(ProfileNames(), ","); !strings.Contains(doc, want) {
		t.Errorf("docs/agents.md should say %q", want)
	}
}

// checkFlagRoles: the flags a profile names for what direct mode adds and
// reads are in its flag table, with the values that role needs.
func checkFlagRoles(t *testing.T, p *Profile) {
	t.Helper()
	if !slices.ContainsFunc(p.flags.list, func(f Flag) bool { return !f.Hidden }) {
		t.Errorf("%s: no flag table from its --help", p.Name)
		return
	}
	printArity, formatArity := NoValue, OneValue
	if p.promptIsValue {
		printArity = OneValue
	}
	if p.streaming == "" {
		formatArity = NoValue
	}
	for _, role := range []struct {
		what  string
		names []string
		want  []Arity
	}{
		{"print", p.printFlags, []Arity{printArity}},
		{"format", p.formatFlags, []Arity{formatArity}},
		{"model", p.modelFlags, []Arity{OneValue}},
		{"workspace", []string{p.workspaceFlag}, []Arity{OneValue}},
		{"force", p.forceFlags, []Arity{NoValue}},
		{"resume", []string{p.resumeFlag}, []Arity{OneValue, OptionalValue}},
		{"added", p.extra, []Arity{NoValue}},
	} {
		for _, name := range role.names {
			if name == "" {
				continue
			}
			if f, ok := p.flags.lookup(name); !ok || !slices.Contains(role.want, f.Arity) {
				t.Errorf("%s: its %s flag %s is not in its flag table with %v (%+v)", p.Name, role.what, name, role.want, f)
			}
		}
	}
}
