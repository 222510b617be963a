// Command cursor-wrap runs a headless coding agent (the Cursor Agent CLI by
// default) under a pseudo-terminal, forwards its stream-json output byte for
// byte, tells a hung agent from a long tool call, and kills a hung agent's
// whole process tree.
//
//	cursor-wrap [wrapper flags] -- [agent args...]
//	cursor-wrap COMMAND [flags]
//
// The commands are the table in this file (commands), each a package of
// its own under ptyproxy/cli; `cursor-wrap help` lists them with their
// usage lines, from the same table.
package main

import (
	_ "embed"
	"os"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/cli/completion"
	"cursor-wrap/ptyproxy/cli/configcmd"
	"cursor-wrap/ptyproxy/cli/demo"
	"cursor-wrap/ptyproxy/cli/doctor"
	"cursor-wrap/ptyproxy/cli/help"
	"cursor-wrap/ptyproxy/cli/inspect"
	"cursor-wrap/ptyproxy/cli/mcp"
	"cursor-wrap/ptyproxy/cli/reportcmd"
	"cursor-wrap/ptyproxy/cli/sessions"
	"cursor-wrap/ptyproxy/cli/shellinit"
	"cursor-wrap/ptyproxy/cli/version"
	"cursor-wrap/ptyproxy/cli/wrap"
	"cursor-wrap/ptyproxy/fakeagent"
)

// demoTranscript is the cursor-agent session the demo replays.
//
//go:embed stream/testdata/normal.jsonl
var demoTranscript []byte

// commands are the subcommands, in the order the usage lists them; the
// first word of the command line names one, else the wrapper runs an
// agent. They drive dispatch, the usage and the completions.
var commands = cli.Table{
	shellinit.Command,
	inspect.Command,
	sessions.Command,
	reportcmd.Command,
	configcmd.Command,
	doctor.Command,
	mcp.Command,
	demo.Command(demoTranscript),
	completion.Command,
	version.Command,
	help.Command,
}

func main() {
	// The demo runs this binary as its fake agent, and the demo agent's
	// script as the demo agent.
	if fakeagent.Is(os.Args[1:]) {
		os.Exit(fakeagent.Main(os.Args[1:]))
	}
	if fakeagent.IsDemo(os.Args[1:]) {
		os.Exit(fakeagent.Demo(os.Args[1:]))
	}
	env := &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Arg0: os.Args[0], Commands: commands}
	os.Exit(run(env, os.Args[1:]))
}

// run dispatches a subcommand, or wraps an agent.
func run(env *cli.Env, args []string) int {
	if len(args) > 0 {
		if c, ok := env.Commands.Lookup(args[0]); ok {
			return c.Run(env, args[1:])
		}
	}
	return wrap.Run(env, args)
}
