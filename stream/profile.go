package stream

import (
	"fmt"
	"slices"
	"strings"
)

// A Profile knows one agent CLI: how its output lines map to events, and
// how its command line selects headless streaming, carries the prompt and
// resumes a session. The watchdog knows no agent; profiles are the only
// place an agent's words appear.
type Profile struct {
	Name     string
	Binaries []string // command names it is installed as
	// Parse reads one output line of its streaming format.
	Parse func(Line) Event
	// valueFlags take a value in the next argument (or after "=").
	valueFlags []string
	// printFlags select headless mode; formatFlag names the output format.
	printFlags []string
	formatFlag string
	streaming  string // the format that streams events
	// resume returns args that resume session id with prompt.
	resume func(p *Profile, args []string, id, prompt string) []string
}

// Cursor is the profile of cursor-agent (also installed as agent).
var Cursor = &Profile{
	Name:       "cursor",
	Binaries:   []string{"cursor-agent", "agent"},
	Parse:      Parse,
	valueFlags: []string{"--model", "-m", "--api-key", "--workspace", "--output-format", "--resume", "--mode", "--sandbox", "-H", "--header"},
	printFlags: []string{"-p", "--print"},
	formatFlag: "--output-format",
	streaming:  "stream-json",
	resume:     flagResume("--resume"),
}

var profiles = []*Profile{Cursor}

// Profiles returns every known profile.
func Profiles() []*Profile { return slices.Clone(profiles) }

// ProfileNamed returns the profile with a name.
func ProfileNamed(name string) (*Profile, error) {
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range profiles {
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("stream: unknown agent %q; known agents: %s", name, strings.Join(names, ", "))
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

// An arg is one parsed command-line argument.
type arg struct {
	flag       string // the flag's name, "" for a positional
	value      int    // index of the flag's value, -1 if none
	positional bool
}

// scan walks args the way the agent's option parser would: a value flag
// takes the next argument unless written flag=value, and everything after
// "--" is positional.
func (p *Profile) scan(args []string) []arg {
	out := make([]arg, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out[i] = arg{value: -1}
		switch {
		case a == "--":
			for j := i + 1; j < len(args); j++ {
				out[j] = arg{value: -1, positional: true}
			}
			out[i].flag = "--"
			return out
		case strings.HasPrefix(a, "-") && a != "-":
			name, _, hasValue := strings.Cut(a, "=")
			out[i].flag = name
			if !hasValue && slices.Contains(p.valueFlags, name) && i+1 < len(args) {
				out[i].value = i + 1
				out[i+1] = arg{value: -1}
				i++
			}
		default:
			out[i].positional = true
		}
	}
	return out
}

// flagValue returns the value of the last occurrence of a flag.
func (p *Profile) flagValue(args []string, flag string) (string, bool) {
	val, found := "", false
	for i, a := range p.scan(args) {
		if a.flag != flag {
			continue
		}
		found = true
		if _, v, ok := strings.Cut(args[i], "="); ok {
			val = v
		} else if a.value >= 0 {
			val = args[a.value]
		}
	}
	return val, found
}

func (p *Profile) has(args []string, flags ...string) bool {
	for _, a := range p.scan(args) {
		if a.flag != "" && slices.Contains(flags, a.flag) {
			return true
		}
	}
	return false
}

// HasPrompt reports whether args hold a positional prompt. Without one the
// agent reads its prompt from stdin.
func (p *Profile) HasPrompt(args []string) bool {
	return slices.ContainsFunc(p.scan(args), func(a arg) bool { return a.positional })
}

// A Mode is how much of an agent run the wrapper can watch.
type Mode int

const (
	// Interactive runs are not watched: the wrapper execs the agent.
	Interactive Mode = iota
	// Bytes: headless, but the output format has no events to read.
	Bytes
	// Events: headless streaming; tool calls and the result are read.
	Events
)

// ModeOf says how args run the agent.
func (p *Profile) ModeOf(args []string) Mode {
	if !p.has(args, p.printFlags...) {
		return Interactive
	}
	if f, _ := p.flagValue(args, p.formatFlag); f == p.streaming {
		return Events
	}
	return Bytes
}

// Direct are the options direct mode adds when the args lack them.
type Direct struct {
	Model     string
	Workspace string
	Force     bool
}

// Headless returns args with what direct mode adds when it is missing:
// headless mode, the streaming format, and the wrapper's --model,
// --workspace and --force. Added flags go before the args, so a positional
// prompt stays last; every given arg is kept, in order.
func (p *Profile) Headless(args []string, d Direct) []string {
	var add []string
	if !p.has(args, p.printFlags...) {
		add = append(add, p.printFlags[len(p.printFlags)-1])
	}
	if !p.has(args, p.formatFlag) {
		add = append(add, p.formatFlag, p.streaming)
	}
	if d.Force && !p.has(args, "--force", "-f", "--yolo") {
		add = append(add, "--force")
	}
	if d.Model != "" && !p.has(args, "--model", "-m") {
		add = append(add, "--model", d.Model)
	}
	if d.Workspace != "" && !p.has(args, "--workspace") {
		add = append(add, "--workspace", d.Workspace)
	}
	return append(add, args...)
}

// Resume returns the args of a rerun that resumes session id with prompt
// in place of the original prompt (appended when the prompt came on stdin).
func (p *Profile) Resume(args []string, id, prompt string) []string {
	return p.resume(p, args, id, prompt)
}

// flagResume resumes with "FLAG id", replacing an earlier one, and puts
// prompt last in place of the original positional prompt.
func flagResume(flag string) func(*Profile, []string, string, string) []string {
	return func(p *Profile, args []string, id, prompt string) []string {
		var out []string
		scanned := p.scan(args)
		for i, a := range scanned {
			isValue := i > 0 && scanned[i-1].value == i
			if a.flag == flag || a.flag == "--" || a.positional || isValue && scanned[i-1].flag == flag {
				continue
			}
			out = append(out, args[i])
		}
		return append(out, flag, id, prompt)
	}
}
