// Command cursor-wrap runs a headless coding agent (the Cursor Agent CLI by
// default) under a pseudo-terminal, forwards its stream-json output byte for
// byte, tells a hung agent from a long tool call, and kills a hung agent's
// whole process tree.
//
//	cursor-wrap [wrapper flags] -- [agent args...]
//	cursor-wrap COMMAND [flags]
//
// The commands are the table in this file (commands); `cursor-wrap help`
// lists them with their usage lines, from the same table.
package main

import (
	"flag"
	"os"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/shellhook"
)

func main() {
	// The demo runs this binary as its fake agent.
	if fakeagent.Is(os.Args[1:]) {
		os.Exit(fakeagent.Main(os.Args[1:]))
	}
	os.Exit(run(os.Args[1:]))
}

// commands are the subcommands, in the order the usage lists them; the
// first word of the command line names one, else the wrapper runs an
// agent. They drive dispatch, the usage and the completions.
var commands cli.Table

// The table is set in init, as help reads it.
func init() {
	commands = cli.Table{
		{
			Name: "shell-init", Args: strings.Join(shellhook.Shells(), "|") + " [--agents " + strings.Join(shellhook.Agents(), ",") + "]",
			Summary: "print shell functions that route cursor-agent through the wrapper",
			Flags:   declares(shellInitFlags), Run: shellInit,
		},
		{
			Name: "inspect", Args: "[--json | --html [-o FILE]] [--gap 10s] FILE | --last | --last-hang",
			Summary: "a session log as a timeline, or its run as an HTML page",
			Flags:   declares(inspectFlags), Run: inspect,
		},
		{
			Name: "sessions", Args: "[--json] [--hung] [--limit N] [--log-dir DIR]",
			Summary: "the recent sessions, one line each",
			Flags:   declares(sessionsFlags), Run: sessions,
		},
		{
			Name: "report", Args: "[--since 7d|DATE] [--agent A] [--json] [--log-dir DIR] [FILE...]",
			Summary: "per agent and day: how the runs ended, their time, their spend",
			Flags:   declares(reportFlags), Run: reportCmd,
		},
		{
			Name: "config", Args: "[--init | --defaults] [--config FILE] [flags]",
			Summary: "the effective config, or a new file",
			Flags:   declares(configFlags), Run: configCmd,
		},
		{
			Name: "doctor", Args: "[--shell bash|zsh|fish] [--config FILE] [--agent-bin PATH]",
			Summary: "check the installation",
			Flags:   declares(doctorFlags), Run: doctor,
		},
		cli.MCP(mcpCmd),
		{
			Name:    "demo",
			Summary: "watch a normal run and a hang",
			Run:     demo,
		},
		{
			Name: "completion", Args: "bash|zsh|fish",
			Summary: "print shell completions for cursor-wrap",
			Run:     completion,
		},
		{
			Name:    "version",
			Summary: "print the version",
			Run:     version,
		},
		{
			Name: "help", Args: "[COMMAND]",
			Summary: "print the usage, or a command's",
			Run:     help,
		},
	}
}

// usageOf is the usage line of the command called name.
func usageOf(name string) string {
	c, _ := commands.Lookup(name)
	return c.Usage()
}

// declares is a command's Flags, from the function that declares its
// flags and returns where they are read into.
func declares[T any](declare func(*flag.FlagSet) T) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) { declare(fs) }
}

// parse reads the command line of the command called name with the flags
// declare declares, and returns what it returned and the flag set (for
// the arguments). done says the command ends here, with status: --help
// printed its usage, or a flag was wrong (with noArgs, an argument too).
func parse[T any](name string, args []string, declare func(*flag.FlagSet) T, noArgs bool) (o T, fs *flag.FlagSet, status int, done bool) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	o = declare(fs)
	status, done = cli.ParseSub(fs, args, name, usageOf(name), noArgs, inheritedFlags(fs)...)
	return o, fs, status, done
}

// inheritedFlags are the wrapper's flags when fs takes them all (config
// and doctor read the config as a run does), but --config, which their
// usage lines name; none otherwise.
func inheritedFlags(fs *flag.FlagSet) []string {
	var names []string
	newFlagSet(new(options)).VisitAll(func(f *flag.Flag) {
		if f.Name != "config" {
			names = append(names, f.Name)
		}
	})
	if slices.ContainsFunc(names, func(n string) bool { return fs.Lookup(n) == nil }) {
		return nil
	}
	return names
}

// run dispatches a subcommand, or wraps an agent.
func run(args []string) int {
	if len(args) > 0 {
		if c, ok := commands.Lookup(args[0]); ok {
			return c.Run(args[1:])
		}
	}
	return wrap(args)
}

// help prints the usage, or a subcommand's: cursor-wrap help [COMMAND].
func help(args []string) int {
	switch {
	case len(args) == 0:
		usage(os.Stdout)
		return 0
	case len(args) == 1 && args[0] != "help" && slices.Contains(commands.Names(), args[0]):
		return run([]string{args[0], "--help"})
	}
	return cli.Fail(job.ExitUsage, "usage: cursor-wrap help [%s]", strings.Join(slices.DeleteFunc(commands.Names(), func(s string) bool { return s == "help" }), "|"))
}
