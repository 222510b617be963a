package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cursor-wrap/stream"
)

// optionLine starts an option's entry: two to six spaces, then a dash
// (commander and yargs indent by two, clap by two or six; a description's
// continuation is indented further, and may itself start with a flag).
var optionLine = regexp.MustCompile(`^ {2,6}-`)

// yargsType is the type yargs prints at the end of an option's entry.
var yargsType = regexp.MustCompile(`\[(string|number|array|boolean|count)\]`)

// parseHelp reads the options a --help text lists, in the forms commander
// (Claude Code, cursor-agent), clap (Codex) and yargs (Gemini CLI,
// opencode) print: "-r, --resume [value]", "-i, --image <FILE>...",
// "-m, --model  Model  [string]".
func parseHelp(text string) ([]stream.Flag, error) {
	var flags []stream.Flag
	var entry []string
	done := func() error {
		if len(entry) == 0 {
			return nil
		}
		f, err := parseEntry(entry)
		entry = nil
		if err != nil {
			return err
		}
		flags = append(flags, f)
		return nil
	}
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case optionLine.MatchString(line):
			if err := done(); err != nil {
				return nil, err
			}
			entry = []string{line}
		case len(entry) > 0 && strings.HasPrefix(line, "   "):
			entry = append(entry, line)
		default:
			if err := done(); err != nil {
				return nil, err
			}
		}
	}
	return flags, done()
}

// parseEntry reads one option: its names and value on the first line, up
// to two spaces, and yargs' type anywhere in the entry.
func parseEntry(entry []string) (stream.Flag, error) {
	head := strings.TrimSpace(entry[0])
	if i := strings.Index(head, "  "); i >= 0 {
		head = head[:i]
	}
	var f stream.Flag
	fields := strings.Fields(head)
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
	if m := yargsType.FindStringSubmatch(strings.Join(entry, " ")); m != nil && value == "" {
		switch m[1] {
		case "string", "number":
			f.Arity = stream.OneValue
		case "array":
			f.Arity = stream.Variadic
		}
		return f, nil
	}
	switch {
	case value == "":
		f.Arity = stream.NoValue
	case strings.Contains(value, "..."):
		f.Arity = stream.Variadic
	case strings.HasPrefix(value, "<"):
		f.Arity = stream.OneValue
	case strings.HasPrefix(value, "["):
		f.Arity = stream.OptionalValue
	default:
		return f, fmt.Errorf("option %q: cannot read its value %q", head, value)
	}
	return f, nil
}

// compare lists where table, an agent's flag table, disagrees with help,
// the options its --help texts list: an option the table lacks, one it
// gives another arity or groups under other names, and one it marks
// hidden though --help prints it or lists though no --help does.
func compare(table, help []stream.Flag) []string {
	var problems []string
	find := func(name string) (stream.Flag, bool) {
		i := slices.IndexFunc(table, func(f stream.Flag) bool { return slices.Contains(f.Names, name) })
		if i < 0 {
			return stream.Flag{}, false
		}
		return table[i], true
	}
	printed := map[string]bool{}
	for _, h := range help {
		for _, name := range h.Names {
			printed[name] = true
			t, ok := find(name)
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s (%s): not in the table", name, h.Arity))
			case t.Arity != h.Arity:
				problems = append(problems, fmt.Sprintf("%s: --help says %s, the table %s", name, h.Arity, t.Arity))
			case !slices.Equal(t.Names, h.Names):
				problems = append(problems, fmt.Sprintf("%s: --help names it %s, the table %s", name, strings.Join(h.Names, ", "), strings.Join(t.Names, ", ")))
			case t.Hidden:
				problems = append(problems, fmt.Sprintf("%s: marked hidden, but --help prints it", name))
			}
		}
	}
	for _, t := range table {
		if !t.Hidden && !slices.ContainsFunc(t.Names, func(n string) bool { return printed[n] }) {
			problems = append(problems, fmt.Sprintf("%s: listed as printed by --help, which does not print it (mark it hidden, or drop it)", strings.Join(t.Names, ", ")))
		}
	}
	return slices.Compact(problems)
}
