package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"cursor-wrap/ptyproxy/job"
)

// options are the wrapper's command line, before the config is built.
type options struct {
	settings  map[string]string // config keys given as flags, as text
	config    string
	model     string
	modelSet  bool // --model given, not its default
	workspace string
	force     bool
	alias     bool
	stdin     string
	agentArgs []string
}

// settingFlag records a config key given on the command line; the value
// is parsed and validated with the rest of the config.
type settingFlag struct {
	s    job.Setting
	into map[string]string
}

func (f settingFlag) String() string     { return "" }
func (f settingFlag) Set(v string) error { f.into[f.s.Key] = v; return nil }
func (f settingFlag) IsBoolFlag() bool   { return f.s.IsBool() }

func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("cursor-wrap", flag.ContinueOnError)
	o.settings = map[string]string{}
	for _, s := range job.Settings {
		fs.Var(settingFlag{s, o.settings}, s.Flag(), s.Doc)
	}
	fs.StringVar(&o.config, "config", "", "config file (default $CURSOR_WRAP_CONFIG, else $XDG_CONFIG_HOME/cursor-wrap/config.toml)")
	fs.StringVar(&o.model, "model", "auto", "model passed to the agent in direct mode when its args name none (the default is cursor's)")
	fs.StringVar(&o.workspace, "workspace", "", "workspace passed to the agent in direct mode when its args name none")
	fs.BoolVar(&o.force, "force", true, "pass --force to the agent in direct mode")
	fs.BoolVar(&o.alias, "alias", false, "alias mode: add nothing to the agent's args; watch only headless runs (used by shell-init)")
	fs.Func("stdin", "auto: a stdin that is not a terminal is copied to the agent and closed at its end; close: the agent's stdin is empty (default auto)", func(v string) error {
		if v != "auto" && v != "close" {
			return fmt.Errorf("%q is not auto or close", v)
		}
		o.stdin = v
		return nil
	})
	return fs
}

// parseFlags reads the wrapper's flags; everything after them (or after
// "--") is the agent's.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := newFlagSet(&o)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return o, err
		}
		return o, fmt.Errorf("%w (see cursor-wrap --help; agent flags go after --)", err)
	}
	o.agentArgs = fs.Args()
	fs.Visit(func(f *flag.Flag) { o.modelSet = o.modelSet || f.Name == "model" })
	return o, nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, `cursor-wrap runs a headless coding agent under a pseudo-terminal, forwards
its output byte for byte, and kills its whole process tree when it hangs.

Usage:
  cursor-wrap [flags] [--] [agent args...]    run the agent, watched
  cursor-wrap shell-init bash|zsh|fish [--agents cursor,…]
                                              print shell functions that route
                                              cursor-agent through the wrapper
  cursor-wrap inspect [--json] FILE|--last|--last-hang
                                              a session log as a timeline
  cursor-wrap sessions [--json] [--hung]      the recent sessions, one line each
  cursor-wrap config [--init]                 the effective config, or a new file
  cursor-wrap doctor [--shell SHELL]          check the installation
  cursor-wrap mcp [--config F] [--log-dir D] [--agent-bin P] [--log-level L]
                                              serve watched agents to MCP clients on stdio
  cursor-wrap demo                            watch a normal run and a hang
  cursor-wrap completion bash|zsh|fish        print completions for the wrapper's flags

Direct mode adds --print --output-format stream-json (and --force, --model)
when the agent args lack them. Each flag below is also a config key
(idle-timeout → idle_timeout) and an environment variable
(CURSOR_WRAP_IDLE_TIMEOUT); flags win over the environment, which wins over
the config file. Durations use Go syntax: 90s, 5m, 1h30m.

Flags:
`)
	var o options
	fs := newFlagSet(&o)
	fs.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		def := f.DefValue
		if s, ok := job.Lookup(strings.ReplaceAll(f.Name, "-", "_")); ok {
			c := job.DefaultConfig()
			def = c.Value(s.Key)
			if s.Key == "log_dir" {
				def = "~/.cursor-wrap/logs"
			}
		}
		if def != "" {
			def = " (default " + def + ")"
		}
		fmt.Fprintf(w, "  --%-20s %s%s\n", f.Name, f.Usage, def)
	})
	fmt.Fprint(w, `
Exit status: the agent's after its result (0 if it had to be stopped for not
exiting); 124 hang killed; 1 (or the agent's) when it exited without a result;
125 wrapper error; 126 agent not executable; 127 agent not found; 128+n after
signal n; 2 usage error of a subcommand.
`)
}
