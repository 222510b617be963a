package stream

import (
	"slices"
	"strings"
)

// An arg is one parsed command-line argument.
type arg struct {
	flag       string // the flag's long name ("" for a value or positional)
	values     []int  // indexes of the flag's values
	positional bool
	sub        bool // the subcommand
	value      bool // a flag's value
}

// scan walks args the way the agent's option parser would: a flag takes
// the values its arity in the agent's flag table says (none when written
// flag=value, and none for a flag the table lacks), everything after "--"
// is positional, and the first positional may be the subcommand. Every
// reading of the agent's arguments goes through it.
func (p *Profile) scan(args []string) []arg {
	out := make([]arg, len(args))
	seenPositional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			out[i].flag = "--"
			for j := i + 1; j < len(args); j++ {
				out[j].positional = true
			}
			return out
		case isFlag(a):
			name, _, hasValue := strings.Cut(a, "=")
			out[i].flag = p.flags.canonical(name)
			f, known := p.flags.lookup(name)
			if hasValue || !known {
				continue
			}
			for at := i; i+1 < len(args) && f.Arity.takes(len(out[at].values), args[i+1]); {
				i++
				out[i].value = true
				out[at].values = append(out[at].values, i)
			}
		default:
			if !seenPositional && slices.Contains(p.subcommand, a) {
				out[i].sub = true
			} else {
				out[i].positional = true
			}
			seenPositional = true
		}
	}
	return out
}

// is reports whether name (a scanned flag's long name) is one of flags.
func (p *Profile) is(name string, flags ...string) bool {
	return name != "" && slices.ContainsFunc(flags, func(f string) bool { return p.flags.canonical(f) == name })
}

// idxFlag returns the index of the flag whose value is at i.
func idxFlag(out []arg, i int) int {
	for j := i - 1; j >= 0; j-- {
		if out[j].flag != "" {
			return j
		}
	}
	return 0
}

// flagValue returns the value of the last occurrence of any of flags.
func (p *Profile) flagValue(args []string, flags ...string) (string, bool) {
	val, found := "", false
	for i, a := range p.scan(args) {
		if !p.is(a.flag, flags...) {
			continue
		}
		found = true
		if _, v, ok := strings.Cut(args[i], "="); ok {
			val = v
		} else if len(a.values) > 0 {
			val = args[a.values[0]]
		}
	}
	return val, found
}

func (p *Profile) has(args []string, flags ...string) bool {
	_, ok := p.flagValue(args, flags...)
	return ok
}

func (p *Profile) hasSub(args []string) bool {
	return len(p.subcommand) == 0 || slices.ContainsFunc(p.scan(args), func(a arg) bool { return a.sub })
}

// HasPrompt reports whether args hold the prompt. Without one the agent
// reads its prompt from stdin.
func (p *Profile) HasPrompt(args []string) bool {
	if p.promptIsValue {
		if v, _ := p.flagValue(args, p.printFlags...); v != "" {
			return true
		}
	}
	return slices.ContainsFunc(p.scan(args), func(a arg) bool { return a.positional })
}

// Prompt returns the prompt args hold (the print flag's value, else the
// positional arguments joined by spaces), "" when it comes on stdin.
func (p *Profile) Prompt(args []string) string {
	if p.promptIsValue {
		if v, _ := p.flagValue(args, p.printFlags...); v != "" {
			return v
		}
	}
	return strings.Join(p.Positionals(args), " ")
}

// Positionals returns the arguments that are neither flags, nor their
// values, nor the subcommand: the words of the prompt.
func (p *Profile) Positionals(args []string) []string {
	var words []string
	for i, a := range p.scan(args) {
		if a.positional {
			words = append(words, args[i])
		}
	}
	return words
}

// Model returns the model args ask for, "" for the agent's default.
func (p *Profile) Model(args []string) string {
	v, _ := p.flagValue(args, p.modelFlags...)
	return v
}

// WithModel returns args asking for model instead of the model they name,
// if any: the model flags and their values go, and the profile's model
// flag is added where direct mode adds its flags (after the subcommand).
// A profile without a model flag gets args back.
func (p *Profile) WithModel(args []string, model string) []string {
	if len(p.modelFlags) == 0 {
		return slices.Clone(args)
	}
	var out []string
	scanned := p.scan(args)
	at := 0
	for i, a := range scanned {
		if a.flag == "--" {
			out = append(out, args[i:]...)
			break
		}
		isModel := p.is(a.flag, p.modelFlags...)
		ofModel := a.value && p.is(scanned[idxFlag(scanned, i)].flag, p.modelFlags...)
		if isModel || ofModel {
			continue
		}
		out = append(out, args[i])
		if a.sub {
			at = len(out)
		}
	}
	return slices.Insert(out, at, p.modelFlags[0], model)
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
	headless := p.hasSub(args)
	if len(p.printFlags) > 0 {
		headless = headless && p.has(args, p.printFlags...)
	}
	if !headless {
		return Interactive
	}
	f, ok := p.flagValue(args, p.formatFlags...)
	if ok && f == p.streaming {
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
// the subcommand, headless mode, the streaming format, and the wrapper's
// model, workspace and force. Every given arg is kept, in order; added
// flags go before them, after the subcommand, so a positional prompt stays
// last. For an agent whose prompt is a flag's value, a positional prompt
// becomes that value.
func (p *Profile) Headless(args []string, d Direct) []string {
	var add []string
	rest := args
	if len(p.subcommand) > 0 {
		// The index is found before the if: Go's cover tool counts no
		// block for a condition after a function literal, and gremlins
		// would never test it.
		i := slices.IndexFunc(p.scan(args), func(a arg) bool { return a.sub })
		if i >= 0 {
			add = append(add, args[:i+1]...)
			rest = args[i+1:]
		} else {
			add = append(add, p.subcommand[0])
		}
	}
	if len(p.printFlags) > 0 && !p.has(args, p.printFlags...) {
		flag := p.printFlags[len(p.printFlags)-1]
		if p.promptIsValue {
			prompt := ""
			scanned := p.scan(rest)
			i := slices.IndexFunc(scanned, func(a arg) bool { return a.positional })
			if i >= 0 {
				prompt = rest[i]
				rest = slices.Delete(slices.Clone(rest), i, i+1)
				if len(rest) > 0 && rest[len(rest)-1] == "--" {
					rest = rest[:len(rest)-1] // Nothing after it now.
				}
			}
			// Joined to its flag, a prompt that starts with "-" is still
			// the prompt.
			add = append(add, flag+"="+prompt)
		} else {
			add = append(add, flag)
		}
	}
	if !p.has(args, p.formatFlags...) {
		add = append(add, p.formatFlags[len(p.formatFlags)-1])
		if p.streaming != "" {
			add = append(add, p.streaming)
		}
	}
	for _, e := range p.extra {
		if !p.has(args, e) {
			add = append(add, e)
		}
	}
	if d.Force && len(p.forceFlags) > 0 && !p.has(args, p.forceFlags...) {
		add = append(add, p.forceFlags[0])
	}
	if d.Model != "" && len(p.modelFlags) > 0 && !p.has(args, p.modelFlags...) {
		add = append(add, p.modelFlags[0], d.Model)
	}
	if d.Workspace != "" && p.workspaceFlag != "" && !p.has(args, p.workspaceFlag) {
		add = append(add, p.workspaceFlag, d.Workspace)
	}
	return append(add, rest...)
}

// Resumes reports whether args resume a session by id: the resume flag,
// or the resume subcommand after the headless one (codex exec resume).
func (p *Profile) Resumes(args []string) bool {
	if p.resumeFlag != "" && p.has(args, p.resumeFlag) {
		return true
	}
	for i, a := range p.scan(args) {
		if a.flag == "--" {
			return false
		}
		if a.positional {
			return args[i] == p.resumeSub
		}
	}
	return false
}

// ResumedID returns the id of the session args resume: the resume flag's
// value, or the word after the resume subcommand; "" when they name none.
func (p *Profile) ResumedID(args []string) string {
	if p.resumeFlag != "" {
		if id, _ := p.flagValue(args, p.resumeFlag); id != "" {
			return id
		}
	}
	if p.resumeSub == "" || !p.Resumes(args) {
		return ""
	}
	scanned := p.scan(args)
	for i, a := range scanned {
		if a.positional && args[i] == p.resumeSub {
			if i+1 < len(args) && scanned[i+1].positional {
				return args[i+1]
			}
			return ""
		}
	}
	return ""
}

// WorkspaceByDir reports whether the agent takes its workspace from its
// working directory rather than a flag.
func (p *Profile) WorkspaceByDir() bool { return p.workspaceFlag == "" }

// CanResume reports whether a session can be resumed by id.
func (p *Profile) CanResume() bool { return p.resumeFlag != "" || p.resumeSub != "" }

// Resume returns the args of a rerun that resumes session id with prompt
// in place of the original prompt (added when the prompt came on stdin).
// Profiles that cannot resume get the original args back.
func (p *Profile) Resume(args []string, id, prompt string) []string {
	if !p.CanResume() {
		return slices.Clone(args)
	}
	var out []string
	scanned := p.scan(args)
	for i, a := range scanned {
		isResume := p.is(a.flag, p.resumeFlag)
		ofResume := a.value && p.is(scanned[idxFlag(scanned, i)].flag, p.resumeFlag)
		if isResume || ofResume || a.positional || a.flag == "--" {
			continue
		}
		out = append(out, args[i])
	}
	// After "--", a prompt that starts with "-" is still the prompt.
	if p.resumeSub != "" {
		return append(out, p.resumeSub, id, "--", prompt)
	}
	return append(out, p.resumeFlag, id, "--", prompt)
}
