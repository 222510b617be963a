// Package fakeagent is a stand-in for a headless agent CLI: it runs a
// script of steps (print lines, replay a transcript with its timing,
// hang, ignore SIGTERM, spawn escaping grandchildren, burn CPU, talk to a
// model server as the real agents do, exit) so the wrapper can be tested
// and demonstrated without the real thing; and the demo agent, which
// answers any headless prompt as cursor-agent does and says it is the
// demo.
//
// Tests re-execute their own binary with Subcommand as its first argument
// and call Main, like os/exec's helper process; the wrapper's demo
// re-executes the wrapper the same way; scripts/fakeagent is the same as a
// standalone program. Only an explicit first argument selects it: nothing
// in the environment turns a binary into the fake agent.
package fakeagent

import (
	"bufio"
	"cursor-wrap/stream"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// Subcommand, as the first argument of a binary that links this package,
// makes it the fake agent: the demo and the tests pass it, nobody else.
const Subcommand = "__fakeagent"

// Is reports whether a command line (without the program name) asks for
// the fake agent.
func Is(args []string) bool { return len(args) > 0 && args[0] == Subcommand }

// StepsEnv, when set to a JSON array of strings, holds the steps, and the
// command line is left to be the agent's own (see the args step).
const StepsEnv = "FAKEAGENT_STEPS"

// Main runs the steps and returns the exit status. args is the command
// line without the program name, Subcommand first or not; cursor-agent's
// own flags in it (the ones the wrapper adds) are skipped, unless the steps
// come from StepsEnv.
func Main(args []string) int {
	if Is(args) {
		args = args[1:]
	}
	a := &agent{out: bufio.NewWriterSize(os.Stdout, 64<<10), flush: true, argv: args}
	if env := os.Getenv(StepsEnv); env != "" {
		args = nil
		if err := json.Unmarshal([]byte(env), &args); err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: $"+StepsEnv+":", err)
			return 2
		}
	} else {
		args = skipAgentFlags(args)
	}
	return a.run(args)
}

// run runs the steps in args and returns the exit status.
func (a *agent) run(args []string) int {
	defer a.out.Flush()
	for len(args) > 0 {
		n, err := a.step(args)
		if err != nil {
			a.out.Flush()
			fmt.Fprintln(os.Stderr, "fakeagent:", err)
			return 2
		}
		if a.exit >= 0 {
			a.out.Flush()
			return a.exit
		}
		args = args[n:]
	}
	return 0
}

type agent struct {
	out   *bufio.Writer
	flush bool // flush after each line, as a terminal's line buffering does
	exit  int
	argv  []string
}

// resumed reports whether the command line resumes a session.
func (a *agent) resumed() bool {
	return stream.Cursor.Resumes(a.argv)
}

// skipAgentFlags drops the cursor-agent flags a wrapper adds, and their
// values, as cursor-agent's flag table reads them, so the rest of the
// command line can be steps.
func skipAgentFlags(args []string) []string { return stream.Cursor.Positionals(args) }

func (a *agent) println(s string) {
	a.out.WriteString(s)
	a.out.WriteByte('\n')
	if a.flush {
		a.out.Flush()
	}
}

// step runs the step at the head of args and returns how many args it used.
func (a *agent) step(args []string) (int, error) {
	a.exit = -1
	i := slices.IndexFunc(table, func(s step) bool { return s.name == args[0] })
	if i < 0 {
		return 0, fmt.Errorf("unknown step %q\n%s", args[0], usage())
	}
	s, rest := table[i], args[1:]
	n := s.argc()
	if len(rest) < n {
		return 0, fmt.Errorf("%s needs %d argument(s)", s.name, n)
	}
	if s.more != nil {
		n += s.more(rest[n:])
	}
	return 1 + n, s.run(a, rest[:n])
}

// sleepForever blocks without looking deadlocked to the Go runtime.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

func (a *agent) printJSON(v any) {
	b, _ := json.Marshal(v)
	a.println(string(b))
}
