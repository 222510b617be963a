// Package shellinit is the command `cursor-wrap shell-init`: the shell
// functions that route cursor-agent (and the other agents) through the
// wrapper.
package shellinit

import (
	"flag"
	"fmt"
	"strings"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/shellhook"
)

// Command is `cursor-wrap shell-init`.
var Command = cli.Command{
	Name: "shell-init", Args: strings.Join(shellhook.Shells(), "|") + " [--agents " + strings.Join(shellhook.Agents(), ",") + "]",
	Summary: "print shell functions that route cursor-agent through the wrapper",
	Flags:   cli.Declares(declare), Run: Run,
}

// declare declares the flags of shell-init: the agents.
func declare(fs *flag.FlagSet) (agents *string) {
	return fs.String("agents", "cursor", "agents to define functions for, comma-separated: "+strings.Join(shellhook.Agents(), ", "))
}

// Run prints the shell functions: cursor-wrap shell-init SHELL [--agents a,b].
func Run(env *cli.Env, args []string) int {
	shell, rest := "", args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		shell, rest = rest[0], rest[1:]
	}
	agents, fs, status, done := cli.ParseCommand(env, "shell-init", rest, declare, false)
	if done {
		return status
	}
	usageLine := env.Usage("shell-init")
	switch {
	case shell == "":
		return env.Fail(job.ExitUsage, "shell-init: which shell? %s", usageLine)
	case fs.NArg() > 0:
		return env.Fail(job.ExitUsage, "shell-init: unexpected %q\n%s", fs.Arg(0), usageLine)
	}
	var names []string
	for _, a := range strings.Split(*agents, ",") {
		if a = strings.TrimSpace(a); a != "" {
			names = append(names, a)
		}
	}
	script, err := shellhook.Script(shell, env.Self(), names)
	if err != nil {
		return env.Fail(job.ExitUsage, "%v", err)
	}
	fmt.Fprint(env.Stdout, script)
	return 0
}
