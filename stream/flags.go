package stream

import (
	"fmt"
	"slices"
	"strings"
)

// An Arity says which of the arguments after a flag are its values, as the
// agent's own option parser takes them (commander for Claude Code and
// cursor-agent, clap for Codex, yargs for Gemini CLI and opencode). A flag
// written --flag=value has that value alone, whatever its arity.
type Arity int

const (
	// NoValue: a switch (--print).
	NoValue Arity = iota
	// OneValue: the next argument, whatever it is (--model M).
	OneValue
	// OptionalValue: the next argument unless it is a flag (--resume
	// [ID]). So an optional-value flag followed by a word takes the word:
	// `claude -p --resume "fix it"` resumes session "fix it" and reads
	// the prompt from stdin, as commander and clap read it. A prompt
	// written after "--" stays the prompt.
	OptionalValue
	// Variadic: every next argument up to a flag (--add-dir A B).
	Variadic
)

func (a Arity) String() string {
	return [...]string{"no value", "one value", "an optional value", "values up to the next flag"}[a]
}

// A Flag is one option of an agent's command line under all its names.
type Flag struct {
	Names []string // as --help lists them: "-r", "--resume"
	Arity Arity
	// Hidden is set for an option the agent takes but its --help does not
	// print (commander's hideHelp, an older version's name).
	Hidden bool
}

// A flagSet is an agent's options, by name. The last name of each flag
// (its long name) stands for all of its names.
type flagSet struct {
	list   []Flag
	byName map[string]int // index into list
}

// flagTable reads an agent's options written as commander declares and
// prints them, one a line: "-r, --resume [value]" (an optional value),
// "--model <model>" (one), "--add-dir <dirs...>" (variadic), "--print"
// (none). listed are the ones its --help prints, hidden the others it
// takes. A malformed line is a mistake in this package: it panics, and
// every test fails.
func flagTable(listed, hidden string) flagSet {
	fs := flagSet{byName: map[string]int{}}
	for i, text := range []string{listed, hidden} {
		for line := range strings.Lines(text) {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			f, err := parseFlag(line)
			if err != nil {
				panic(err)
			}
			f.Hidden = i == 1
			for _, n := range f.Names {
				if _, dup := fs.byName[n]; dup {
					panic(fmt.Sprintf("flag %s listed twice", n))
				}
				fs.byName[n] = len(fs.list)
			}
			fs.list = append(fs.list, f)
		}
	}
	return fs
}

// parseFlag reads one option: its names, separated by ", ", then its value,
// if any, in <> (required) or [] (optional), "..." inside for several.
func parseFlag(spec string) (Flag, error) {
	var f Flag
	fields := strings.Fields(spec)
	i := 0
	for i < len(fields) {
		name, more := strings.CutSuffix(fields[i], ",")
		f.Names = append(f.Names, name)
		i++
		if !more {
			break
		}
	}
	value := strings.Join(fields[i:], " ")
	for _, n := range f.Names {
		if len(n) < 2 || n[0] != '-' || strings.ContainsAny(n, "=<>[] ") {
			return f, fmt.Errorf("flag %q: bad name %q", spec, n)
		}
	}
	switch {
	case value == "":
		f.Arity = NoValue
	case strings.HasSuffix(value, "...>") || strings.HasSuffix(value, "...]"):
		f.Arity = Variadic
	case strings.HasPrefix(value, "<") && strings.HasSuffix(value, ">"):
		f.Arity = OneValue
	case strings.HasPrefix(value, "[") && strings.HasSuffix(value, "]"):
		f.Arity = OptionalValue
	default:
		return f, fmt.Errorf("flag %q: value %q is neither <required> nor [optional]", spec, value)
	}
	return f, nil
}

// lookup returns the flag named name, if the agent has it.
func (fs flagSet) lookup(name string) (Flag, bool) {
	i, ok := fs.byName[name]
	if !ok {
		return Flag{}, false
	}
	return fs.list[i], true
}

// canonical is the name that stands for a flag: its long name, or name
// itself for a flag the agent does not have.
func (fs flagSet) canonical(name string) string {
	if f, ok := fs.lookup(name); ok {
		return f.Names[len(f.Names)-1]
	}
	return name
}

// Flags returns the agent's options, as its --help lists them and then
// the hidden ones; scripts/agentflags holds them to the help of the
// installed CLIs.
func (p *Profile) Flags() []Flag {
	out := slices.Clone(p.flags.list)
	for i := range out {
		out[i].Names = slices.Clone(out[i].Names)
	}
	return out
}

// takes reports whether a flag of arity a with n values so far takes next
// as one more.
func (a Arity) takes(n int, next string) bool {
	switch a {
	case OneValue:
		return n == 0
	case OptionalValue:
		return n == 0 && !isFlag(next)
	case Variadic:
		return !isFlag(next)
	}
	return false
}

// isFlag reports whether an argument is a flag rather than a value, as
// commander and yargs tell them: it starts with "-" and is not "-" alone.
func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' }
