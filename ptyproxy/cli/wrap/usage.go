package wrap

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
)

// parseFlags reads the wrapper's flags; everything after them (or after
// "--") is the agent's.
func parseFlags(args []string) (cli.Options, error) {
	var o cli.Options
	fs := cli.NewFlagSet(&o)
	dashed, err := cli.Parse(fs, args, "")
	if err != nil {
		return o, err
	}
	o.AgentArgs, o.Dashed = fs.Args(), dashed
	fs.Visit(func(f *flag.Flag) { o.ModelSet = o.ModelSet || f.Name == "model" })
	return o, nil
}

// misplaced is the error for agent args not after "--": a bare first
// word is a command the wrapper does not have (a typo of one, or a prompt
// that belongs after "--"); a word after the wrapper's flags is a prompt
// or a command out of place.
func misplaced(commands cli.Table, args []string, atStart bool) error {
	word := args[0]
	if slices.Contains(commands.Names(), word) {
		return fmt.Errorf("%q is a command: it goes first, as in cursor-wrap %s …", word, word)
	}
	if atStart {
		if s := config.Suggest(word, commands.Names()); s != "" {
			return fmt.Errorf("unknown command %q — did you mean %s? A prompt goes after --", word, s)
		}
		return fmt.Errorf("unknown command %q: a prompt goes after --, as in cursor-wrap -- %s, or on stdin", word, job.ShellWords(args))
	}
	return fmt.Errorf("%q after the wrapper's flags: a prompt goes after --, as in cursor-wrap [flags] -- %s, or on stdin", word, job.ShellWords(args))
}

// Usage writes the wrapper's usage: how to run an agent, the commands,
// the flags and the exit statuses.
func Usage(w io.Writer, commands cli.Table) {
	fmt.Fprint(w, `cursor-wrap runs a headless coding agent under a pseudo-terminal, forwards
its output byte for byte, and kills its whole process tree when it hangs.

Usage:
  cursor-wrap [flags] -- [agent args...]      run the agent, watched (direct mode)
  echo PROMPT | cursor-wrap [flags]           the prompt on stdin
`)
	commands.List(w)
	fmt.Fprint(w, `
The agent's args, the prompt among them, go after --. Direct mode adds
--print --output-format stream-json to them when they lack them, and
--model auto and --force: the agent then runs commands and edits files
without asking, as a headless run needs (--no-force leaves it out). Each
flag below is also a config key (idle-timeout → idle_timeout) and an
environment variable (CURSOR_WRAP_IDLE_TIMEOUT); flags win over the
environment, which wins over the config file. Durations use Go syntax: 90s,
5m, 1h30m.

Flags:
`)
	var o cli.Options
	fs := cli.NewFlagSet(&o)
	fs.VisitAll(func(f *flag.Flag) {
		def := f.DefValue
		if s, ok := config.Lookup(strings.ReplaceAll(f.Name, "-", "_")); ok {
			c := config.DefaultConfig()
			def = c.Value(s.Key)
			if s.Key == "log_dir" {
				def = "$XDG_STATE_HOME/cursor-wrap/logs, else ~/.local/state/cursor-wrap/logs"
			}
		}
		if def == "false" && cli.IsBool(f) {
			def = ""
		}
		if def != "" {
			def = " (default " + def + ")"
		}
		fmt.Fprintf(w, "  --%-20s %s%s\n", f.Name, f.Usage, def)
	})
	fmt.Fprint(w, `
Exit status: the agent's own, except where the wrapper acted: 124 hang
killed; 85 the agent asked what only a person can answer (trust, login,
[y/N]) and was stopped, or in direct mode exited 0 after such a question;
86 the agent reported more than --max-tokens or --max-cost-usd allow and was
stopped; 0 when the agent answered but had to be stopped; 128+n after signal n; 141
(74) when stdout was closed (failed). In direct mode with stream-json, an
agent that exits 0 without a result (its stream was cut short), or with a
result that says it failed, gets 1. In direct mode, a run that failed
after the agent said why: 80 rate limited, 81 service unreachable, 82
quota used up, 83 not logged in, 84 CLI too old. The wrapper's own: 125 a
bad flag or config; 126 agent not executable; 127 agent not found; 2 an
unknown command or a subcommand's usage error.
`)
}
