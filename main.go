// Command cursor-wrap runs a headless coding agent (the Cursor Agent CLI by
// default) under a pseudo-terminal, forwards its stream-json output byte for
// byte, tells a hung agent from a long tool call, and kills a hung agent's
// whole process tree.
//
//	cursor-wrap [wrapper flags] -- [agent args...]
//	cursor-wrap shell-init bash|zsh|fish [--agents a,b]
//	cursor-wrap inspect [--json] LOGFILE | --last | --last-hang
//	cursor-wrap sessions [--json] [--hung]
//	cursor-wrap config [--init]
//	cursor-wrap doctor [--shell bash|zsh|fish]
//	cursor-wrap mcp [--config FILE] [--log-dir DIR] [--agent-bin PATH] [--log-level LEVEL]
//	cursor-wrap demo
//	cursor-wrap completion bash|zsh|fish
//	cursor-wrap version
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/job"
)

func main() {
	stdio = ptyproxy.ClosedStdio()
	// The demo runs this binary as its fake agent.
	if fakeagent.Is(os.Args[1:]) {
		os.Exit(fakeagent.Main(os.Args[1:]))
	}
	os.Exit(run(os.Args[1:]))
}

// stdio says which of stdin, stdout and stderr were closed when the
// wrapper started (they are /dev/null now).
var stdio [3]bool

// run dispatches a subcommand, or wraps an agent.
func run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "shell-init":
			return shellInit(args[1:])
		case "inspect":
			return inspect(args[1:])
		case "sessions":
			return sessions(args[1:])
		case "config":
			return configCmd(args[1:])
		case "demo":
			return demo(args[1:])
		case "doctor":
			return doctor(args[1:])
		case "mcp":
			return mcpCmd(args[1:])
		case "completion":
			return completion(args[1:])
		case "version":
			return version(args[1:])
		case "help":
			return help(args[1:])
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
	case len(args) == 1 && args[0] != "help" && slices.Contains(subcommandNames(), args[0]):
		return run([]string{args[0], "--help"})
	}
	return fail(job.ExitUsage, "usage: cursor-wrap help [%s]", strings.Join(slices.DeleteFunc(subcommandNames(), func(s string) bool { return s == "help" }), "|"))
}

// fail prints a wrapper error and returns status.
func fail(status int, format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "cursor-wrap: "+format+"\n", a...)
	return status
}
