package stream

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Profile knows one agent CLI: how its output lines map to events, and
// how its command line selects headless streaming, carries the prompt and
// resumes a session. The watchdog knows no agent; profiles are the only
// place an agent's words appear.
type Profile struct {
	Name     string
	Binaries []string // command names it is installed as, the usual first
	Install  string   // how its makers say to install it, a shell command
	// Parse reads one output line of its streaming format.
	Parse func(Line) Event
	// errors are the agent's error wordings (in the agent's file).
	errors *errorTable
	// questions are the prompts it may leave a person.
	questions []QuestionPattern
	// phases are the labels (or types) of the lines that say what the
	// agent is doing; an unlisted one is Busy.
	phases map[string]Phase
	// modelCalls are the labels (or types) of the lines that open a call
	// to the model and of those that close one (see ModelEdge).
	modelCalls modelTable
	// runtime is the command name of the agent's runtime process (see
	// Runtime), "" for an agent that is one process.
	runtime string
	// keepAliveWait is the agent's own bound on a model call that gets
	// keep-alives only (see KeepAliveWait), 0 for none.
	keepAliveWait time.Duration
	// UsageTiming says when the agent reports what it spends: as it goes
	// (a budget holds mid-run) or only at the end.
	UsageTiming UsageTiming
	// CostTiming says when the agent states what its run cost (Claude in
	// its result, OpenCode per step); UsageUnknown for one that states
	// none, whose cost is never guessed.
	CostTiming UsageTiming

	// Command line. flags are the agent's options with the values each
	// takes (flags.go), from its --help; subcommand must come first for
	// headless runs (codex exec, opencode run).
	flags      flagSet
	subcommand []string
	// printFlags select headless mode. When promptIsValue, the prompt is
	// the value of a print flag (gemini -p PROMPT).
	printFlags    []string
	promptIsValue bool
	// formatFlags name the output format and streaming the value that
	// streams events; an empty streaming means the flag alone does (codex
	// --json).
	formatFlags []string
	streaming   string
	// Direct mode adds these when missing.
	extra         []string
	modelFlags    []string
	workspaceFlag string // "" when the agent takes its workspace from its working directory
	forceFlags    []string
	// resumeFlag resumes a session: "--resume ID"; "" when only the
	// original command can be rerun. codex resumes with a subcommand.
	resumeFlag string
	resumeSub  string
}

var profiles = []*Profile{Cursor, Claude, Codex, Gemini, OpenCode}

// Profiles returns every known profile.
func Profiles() []*Profile { return slices.Clone(profiles) }

// ProfileNamed returns the profile with a name.
func ProfileNamed(name string) (*Profile, error) {
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown agent %q; known agents: %s", name, strings.Join(ProfileNames(), ", "))
}

// ProfileNames lists the agents' names.
func ProfileNames() []string {
	var names []string
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	return names
}

// ProfileFor picks a profile by the agent binary's base name, or nil.
func ProfileFor(binary string) *Profile {
	for _, p := range profiles {
		if slices.Contains(p.Binaries, binary) {
			return p
		}
	}
	return nil
}
