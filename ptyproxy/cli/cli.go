// Package cli is the command line the two binaries share (cursor-wrap and
// cursor-wrap-mcp): a table of commands that drives dispatch, help and
// completion, flags read with errors that name the fix, the settings as
// flags, one way to fail and one version line.
package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Fail prints an error of either binary on stderr, as both word it, and
// returns status.
func Fail(status int, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "cursor-wrap: "+format+"\n", a...)
	return status
}

// A Command is a subcommand of cursor-wrap: the first word of its command
// line.
type Command struct {
	Name string
	// Args is what follows "cursor-wrap NAME" in its usage line.
	Args string
	// Summary says what it does, in the usage and the completions.
	Summary string
	// Flags declares its flags on a flag set; Run declares them with it
	// too, so that help and completion offer the flags it reads. Nil when
	// it takes none.
	Flags func(*flag.FlagSet)
	Run   func(args []string) int
}

// Usage is its usage line.
func (c Command) Usage() string {
	return strings.TrimSpace("usage: cursor-wrap " + c.Name + " " + c.Args)
}

// FlagSet is a flag set of its own flags, as Run reads them.
func (c Command) FlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	if c.Flags != nil {
		c.Flags(fs)
	}
	return fs
}

// Table is every subcommand of a binary, in the order its usage lists them.
type Table []Command

// Lookup is the command called name.
func (t Table) Lookup(name string) (Command, bool) {
	for _, c := range t {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Names are the commands' names, in order.
func (t Table) Names() []string {
	names := make([]string, len(t))
	for i, c := range t {
		names[i] = c.Name
	}
	return names
}

// usageColumn is where the usage lists what each command does.
const usageColumn = 46

// List writes each command's usage line and what it does, as the usage
// lists them: the summary beside the command, or under it when the
// command is too long.
func (t Table) List(w io.Writer) {
	for _, c := range t {
		line := "  " + strings.TrimSpace("cursor-wrap "+c.Name+" "+c.Args)
		if n := utf8.RuneCountInString(line); n < usageColumn {
			fmt.Fprintf(w, "%s%s%s\n", line, strings.Repeat(" ", usageColumn-n), c.Summary)
		} else {
			fmt.Fprintf(w, "%s\n%s%s\n", line, strings.Repeat(" ", usageColumn), c.Summary)
		}
	}
}
