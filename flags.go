package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/shellhook"
)

// options are the wrapper's command line, before the config is built.
type options struct {
	settings  map[string]string // config keys given as flags, as text
	config    string
	model     string
	modelSet  bool // --model given, not its default
	workspace string
	force     bool
	noForce   bool
	alias     bool
	stdin     string
	version   bool
	agentArgs []string
	// dashed says the agent's args came after "--", where they belong.
	dashed bool
}

// newFlagSet is the wrapper's flag set, reading into o.
func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("cursor-wrap", flag.ContinueOnError)
	o.declare(fs)
	return fs
}

// declare declares the wrapper's flags on fs, reading into o; config and
// doctor take them too.
func (o *options) declare(fs *flag.FlagSet) {
	o.settings = map[string]string{}
	cli.SettingFlags(fs, &o.config, o.settings)
	fs.StringVar(&o.model, "model", "", "model passed to the agent in direct mode when its args name none (default: auto for cursor, the agent's own default for the others)")
	fs.StringVar(&o.workspace, "workspace", "", "workspace passed to the agent in direct mode when its args name none")
	fs.BoolVar(&o.force, "force", true, "pass --force to the agent in direct mode: it runs commands and edits files without asking")
	fs.BoolVar(&o.noForce, "no-force", false, "do not pass --force in direct mode (a headless cursor-agent then has its commands rejected)")
	fs.BoolVar(&o.alias, "alias", false, "alias mode: add nothing to the agent's args; watch only headless runs (used by shell-init)")
	fs.Func("stdin", "auto: a stdin that is not a terminal is copied to the agent and closed at its end (beside a prompt in the args, only if it gives something within --stdin-wait); close: the agent's stdin is empty (default auto)", func(v string) error {
		if v != "auto" && v != "close" {
			return fmt.Errorf("%q is not auto or close", v)
		}
		o.stdin = v
		return nil
	})
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
}

// parseFlags reads the wrapper's flags; everything after them (or after
// "--") is the agent's.
func parseFlags(args []string) (options, error) {
	var o options
	fs := newFlagSet(&o)
	dashed, err := cli.Parse(fs, args, "")
	if err != nil {
		return o, err
	}
	o.agentArgs, o.dashed = fs.Args(), dashed
	fs.Visit(func(f *flag.Flag) { o.modelSet = o.modelSet || f.Name == "model" })
	return o, nil
}

// misplaced is the error for agent args not after "--": a bare first
// word is a command the wrapper does not have (a typo of one, or a prompt
// that belongs after "--"); a word after the wrapper's flags is a prompt
// or a command out of place.
func misplaced(args []string, atStart bool) error {
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

// otherEnv are the wrapper's environment variables that are not settings:
// the config file's path, the shell functions' switch and their word to
// the wrapper, the depth guard, the attempt marker, and what an on_hang or
// a notification command is given (it may run cursor-wrap again).
var otherEnv = []string{config.EnvPrefix + "CONFIG", config.EnvPrefix + "DISABLE", shellhook.FuncEnv, shellhook.DepthEnv,
	ptyproxy.MarkerEnv, config.EnvPrefix + "LOG", config.EnvPrefix + "SESSION_ID", config.EnvPrefix + "EXIT",
	config.EnvPrefix + "NOTIFY_TITLE", config.EnvPrefix + "NOTIFY_TEXT"}

// unknownEnv says, for each variable of environ named like the wrapper's
// that the wrapper does not read, that it does nothing, and the one meant
// when it is a typo: a misspelled setting must not pass unseen.
func unknownEnv(environ []string) []string {
	known := slices.Clone(otherEnv)
	for _, s := range config.Settings {
		known = append(known, s.Env())
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, config.EnvPrefix) || slices.Contains(known, name) {
			continue
		}
		msg := "$" + name + " is not a setting of cursor-wrap and does nothing"
		if s := config.Suggest(name, known); s != "" {
			msg += ": did you mean $" + s + "?"
		}
		out = append(out, msg)
	}
	return out
}

func usage(w io.Writer) {
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
	var o options
	fs := newFlagSet(&o)
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
