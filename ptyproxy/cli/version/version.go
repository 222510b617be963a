// Package version is the command `cursor-wrap version` (and --version):
// the version, and for a build from a checkout its commit.
package version

import (
	"fmt"

	"cursor-wrap/ptyproxy/cli"
)

// Command is `cursor-wrap version`.
var Command = cli.Command{
	Name:    "version",
	Summary: "print the version",
	Run:     Run,
}

// Run prints the version: cursor-wrap version, or --version.
func Run(env *cli.Env, args []string) int {
	if status, done := cli.NoArgs(env, args, "version", " (or --version): the version, and for a build from a checkout its commit"); done {
		return status
	}
	fmt.Fprintln(env.Stdout, cli.Version("cursor-wrap"))
	return 0
}
