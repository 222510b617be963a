//go:build linux

// Command bench holds the measuring tools behind scripts/bench.sh, which
// compares the wrapper with the two baselines it cannot beat: the fake
// agent writing to a plain pipe, and the fake agent writing to a bare PTY
// whose master a minimal copier reads into a pipe.
//
//	bench barepty -- CMD ARGS...   the bare-PTY baseline (the minimal copier)
//	bench run [flags] -- CMD ARGS...
//	                               run CMD (N copies at once with -n), read
//	                               its stdout, print one line of key=value
//	                               measurements
//	bench sink                     latency of "sent_ns" lines read on stdin
//	bench logtimes -idle D LOG     detection and kill timing from a session log
//
// Every number is printed as key=value on one line, so bench.sh can take
// medians with sort and awk and needs nothing else.
//
// It builds on Linux only: its measurements come from /proc.
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  bench barepty -- CMD ARGS...
  bench run [-n N] [-pty] [-lat] [-idle FROM:TO] [-sample D] [-timeout D] -- CMD ARGS...
  bench sink
  bench logtimes -idle D LOGFILE`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "barepty":
		os.Exit(barePTY(args))
	case "run":
		os.Exit(runCmd(args))
	case "sink":
		os.Exit(sink())
	case "logtimes":
		os.Exit(logTimes(args))
	}
	fmt.Fprintln(os.Stderr, usage)
	os.Exit(2)
}

// fatal reports a setup error of the bench itself.
func fatal(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", a...)
	return 2
}

// afterDashes returns what follows "--" (or all of args when there is none).
func afterDashes(args []string) []string {
	for i, a := range args {
		if a == "--" {
			return args[i+1:]
		}
	}
	return args
}
