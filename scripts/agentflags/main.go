// Command agentflags holds an agent's flag table (stream's) to the options
// its --help prints: scripts/realagents.sh runs it on the help of the CLIs
// it installs, its tests on cursor-agent's committed capture.
//
//	agentflags AGENT HELPFILE...
//
// It reads every HELPFILE (the --help of the agent's commands whose flags
// the table holds, say `codex --help` and `codex exec --help`), and exits 1
// naming each option the table lacks, gives another arity, or marks hidden
// wrongly; 0, with a count, when they agree.
package main

import (
	"fmt"
	"os"
	"slices"

	"cursor-wrap/stream"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: agentflags AGENT HELPFILE...")
		return 2
	}
	p, err := stream.ProfileNamed(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentflags:", err)
		return 2
	}
	var help []stream.Flag
	for _, file := range args[1:] {
		text, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agentflags:", err)
			return 2
		}
		flags, err := parseHelp(string(text))
		if err != nil || len(flags) == 0 {
			fmt.Fprintf(os.Stderr, "agentflags: %s: no options read (%v)\n", file, err)
			return 1
		}
		for _, f := range flags {
			// Options that several commands share (codex and codex exec) once.
			if !slices.ContainsFunc(help, func(h stream.Flag) bool { return slices.Equal(h.Names, f.Names) && h.Arity == f.Arity }) {
				help = append(help, f)
			}
		}
	}
	if problems := compare(p.Flags(), help); len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "agentflags: %s's flag table (stream/%s.go) disagrees with its --help:\n", p.Name, p.Name)
		for _, s := range problems {
			fmt.Fprintln(os.Stderr, "  "+s)
		}
		return 1
	}
	fmt.Printf("agentflags: %s: the %d options its --help prints are in its flag table, each with its values\n", p.Name, len(help))
	return 0
}
