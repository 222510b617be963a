// Package cli is the command line the two binaries share (cursor-wrap and
// cursor-wrap-mcp): a table of commands that drives dispatch, help and
// completion, the streams a command is given, flags read with errors that
// name the fix, the settings as flags, one way to fail and one version
// line. Each command's body is a package of its own under it.
package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Env is what a command runs with: the streams it reads and writes (the
// process's own, given by main; buffers or a terminal in tests), the name
// the binary was started by, and the table of commands it is one of. A
// command reads no other arguments than those it is given and writes to
// no other streams than these.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Arg0 is the name the binary was started by (main's os.Args[0]): the
	// shell functions and the advice name the wrapper by it.
	Arg0 string
	// Commands are the binary's, for help, completion and the advice.
	Commands Table
}

// Fail prints an error of either binary on the command's stderr, as both
// word it, and returns status.
func (e *Env) Fail(status int, format string, a ...any) int {
	fmt.Fprintf(e.Stderr, "cursor-wrap: "+format+"\n", a...)
	return status
}

// Usage is the usage line of the command called name.
func (e *Env) Usage(name string) string {
	c, _ := e.Commands.Lookup(name)
	return c.Usage()
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
	// Run runs it with the arguments after its name, and returns the
	// exit status.
	Run func(env *Env, args []string) int
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
