// Package help is the command `cursor-wrap help`: the usage, or a
// command's.
package help

import (
	"slices"
	"strings"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/cli/wrap"
	"cursor-wrap/ptyproxy/job"
)

// Command is `cursor-wrap help`.
var Command = cli.Command{
	Name: "help", Args: "[COMMAND]",
	Summary: "print the usage, or a command's",
	Run:     Run,
}

// Run prints the usage, or a command's, of the commands of env:
// cursor-wrap help [COMMAND].
func Run(env *cli.Env, args []string) int {
	names := env.Commands.Names()
	switch {
	case len(args) == 0:
		wrap.Usage(env.Stdout, env.Commands)
		return 0
	case len(args) == 1 && args[0] != "help" && slices.Contains(names, args[0]):
		c, _ := env.Commands.Lookup(args[0])
		return c.Run(env, []string{"--help"})
	}
	return env.Fail(job.ExitUsage, "usage: cursor-wrap help [%s]", strings.Join(slices.DeleteFunc(names, func(s string) bool { return s == "help" }), "|"))
}
