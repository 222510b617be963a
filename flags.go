package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"cursor-wrap/ptyproxy"
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
	fs.StringVar(&o.model, "model", "", "model passed to the agent in direct mode when its args name none (default: auto for cursor, the agent's own default for the others)")
	fs.StringVar(&o.workspace, "workspace", "", "workspace passed to the agent in direct mode when its args name none")
	fs.BoolVar(&o.force, "force", true, "pass --force to the agent in direct mode: it runs commands and edits files without asking")
	fs.BoolVar(&o.noForce, "no-force", false, "do not pass --force in direct mode (a headless cursor-agent then has its commands rejected)")
	fs.BoolVar(&o.alias, "alias", false, "alias mode: add nothing to the agent's args; watch only headless runs (used by shell-init)")
	fs.Func("stdin", "auto: a stdin that is not a terminal is copied to the agent and closed at its end; close: the agent's stdin is empty (default auto)", func(v string) error {
		if v != "auto" && v != "close" {
			return fmt.Errorf("%q is not auto or close", v)
		}
		o.stdin = v
		return nil
	})
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	return fs
}

// parseFlags reads the wrapper's flags; everything after them (or after
// "--") is the agent's.
func parseFlags(args []string) (options, error) {
	var o options
	fs := newFlagSet(&o)
	dashed, err := parseArgs(fs, args, "")
	if err != nil {
		return o, err
	}
	o.agentArgs, o.dashed = fs.Args(), dashed
	fs.Visit(func(f *flag.Flag) { o.modelSet = o.modelSet || f.Name == "model" })
	return o, nil
}

// parseArgs parses args with fs and says whether "--" ended the flags. Its
// errors name the flag and the fix, which the flag package's do not: an
// unknown flag with the flag meant ("did you mean"), a value missing, a
// bad true/false. sub is the subcommand ("" for the wrapper itself), for
// the advice.
func parseArgs(fs *flag.FlagSet, args []string, sub string) (dashed bool, err error) {
	fs.SetOutput(io.Discard)
	// The flags are read here first, as the flag package reads them, for
	// the errors.
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			dashed = true
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name == "h" || name == "help" {
			return false, flag.ErrHelp
		}
		f := fs.Lookup(name)
		if f == nil || strings.HasPrefix(name, "-") {
			return false, unknownFlag(fs, a, sub)
		}
		if isBool(f) {
			if _, err := strconv.ParseBool(value); hasValue && err != nil {
				return false, fmt.Errorf("%s: %q is not true or false (--%s alone means true)", a, value, name)
			}
			continue
		}
		if !hasValue {
			// "--" ends the flags: taken for the value, it would leave the
			// agent's args to be blamed as misplaced.
			if i+1 == len(args) || args[i+1] == "--" {
				return false, fmt.Errorf("--%s needs a value, as in --%s %s", name, name, example(f))
			}
			i++
			value = args[i]
		}
		if err := f.Value.Set(value); err != nil {
			return false, fmt.Errorf("--%s %s: %s", name, value, valueProblem(f, value, err))
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return false, err
		}
		// Not foreseen above: still name the command.
		return false, fmt.Errorf("%s (see %s --help)", err, command(sub))
	}
	return dashed, nil
}

// parseSub parses a subcommand's flags with parseArgs. done says the
// command ends here, with status: --help printed its usage (0), or a flag
// was wrong. With noArgs, an argument besides the flags is wrong too.
func parseSub(fs *flag.FlagSet, args []string, sub, usageLine string, noArgs bool) (status int, done bool) {
	_, err := parseArgs(fs, args, sub)
	switch {
	case errors.Is(err, flag.ErrHelp):
		subUsage(os.Stdout, usageLine, fs)
		return 0, true
	case err != nil:
		return fail(job.ExitUsage, "%s: %v", sub, err), true
	case noArgs && fs.NArg() > 0:
		return fail(job.ExitUsage, "%s: unexpected %q\n%s", sub, fs.Arg(0), usageLine), true
	}
	return 0, false
}

// noArgs reads the command line of a subcommand that takes no arguments.
// done says the command ends here, with status: -h, -help or --help alone
// printed its usage line, sub and what it does (about), or an argument was
// given.
func noArgs(args []string, sub, about string) (status int, done bool) {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		fmt.Println("usage: cursor-wrap " + sub + about)
		return 0, true
	case len(args) > 0:
		return fail(job.ExitUsage, "usage: cursor-wrap %s (it takes no arguments)", sub), true
	}
	return 0, false
}

// unknownFlag says a flag is not the command's, with the one meant when it
// is a typo; to the wrapper itself, that the agent's flags go after "--".
func unknownFlag(fs *flag.FlagSet, arg, sub string) error {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := job.Suggest(name, names); s != "" {
		return fmt.Errorf("unknown flag %s: did you mean --%s?", arg, s)
	}
	if sub == "" {
		return fmt.Errorf("unknown flag %s: the agent's flags go after --, as in cursor-wrap -- %s …; cursor-wrap --help lists the wrapper's", arg, arg)
	}
	return fmt.Errorf("unknown flag %s: %s --help lists its flags", arg, command(sub))
}

func command(sub string) string {
	if sub == "" {
		return "cursor-wrap"
	}
	return "cursor-wrap " + sub
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// valueProblem says what is wrong with a value the flag refused: the
// flag package's own say only "parse error".
func valueProblem(f *flag.Flag, value string, err error) string {
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case time.Duration:
			return fmt.Sprintf("%q is not a duration like 90s or 5m", value)
		case int, int64, uint, uint64:
			return fmt.Sprintf("%q is not a whole number", value)
		case float64:
			return fmt.Sprintf("%q is not a number", value)
		}
	}
	return err.Error()
}

// example is a value a flag takes, for an error that shows its use.
func example(f *flag.Flag) string {
	if w, ok := flagValues[f.Name]; ok {
		switch {
		case w.words != nil:
			return strings.Join(w.words, "|")
		case w.dir:
			return "DIR"
		case w.file:
			return "FILE"
		}
	}
	if s, ok := job.Lookup(strings.ReplaceAll(f.Name, "-", "_")); ok {
		c := job.DefaultConfig()
		if v := c.Value(s.Key); v != "" {
			if _, err := time.ParseDuration(v); err == nil {
				return "90s"
			}
			return v
		}
	}
	if f.DefValue != "" {
		return f.DefValue
	}
	return strings.ToUpper(f.Name[strings.LastIndex(f.Name, "-")+1:])
}

// misplaced is the error for agent args not after "--": a bare first
// word is a command the wrapper does not have (a typo of one, or a prompt
// that belongs after "--"); a word after the wrapper's flags is a prompt
// or a command out of place.
func misplaced(args []string, atStart bool) error {
	word := args[0]
	if slices.Contains(subcommandNames(), word) {
		return fmt.Errorf("%q is a command: it goes first, as in cursor-wrap %s …", word, word)
	}
	if atStart {
		if s := job.Suggest(word, subcommandNames()); s != "" {
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
var otherEnv = []string{job.EnvPrefix + "CONFIG", job.EnvPrefix + "DISABLE", shellhook.FuncEnv, shellhook.DepthEnv,
	ptyproxy.MarkerEnv, job.EnvPrefix + "LOG", job.EnvPrefix + "SESSION_ID", job.EnvPrefix + "EXIT",
	job.EnvPrefix + "NOTIFY_TITLE", job.EnvPrefix + "NOTIFY_TEXT"}

// unknownEnv says, for each variable of environ named like the wrapper's
// that the wrapper does not read, that it does nothing, and the one meant
// when it is a typo: a misspelled setting must not pass unseen.
func unknownEnv(environ []string) []string {
	known := slices.Clone(otherEnv)
	for _, s := range job.Settings {
		known = append(known, s.Env())
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, job.EnvPrefix) || slices.Contains(known, name) {
			continue
		}
		msg := "$" + name + " is not a setting of cursor-wrap and does nothing"
		if s := job.Suggest(name, known); s != "" {
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
  cursor-wrap version                         print the version

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
		if s, ok := job.Lookup(strings.ReplaceAll(f.Name, "-", "_")); ok {
			c := job.DefaultConfig()
			def = c.Value(s.Key)
			if s.Key == "log_dir" {
				def = "$XDG_STATE_HOME/cursor-wrap/logs, else ~/.local/state/cursor-wrap/logs"
			}
		}
		if def == "false" && isBool(f) {
			def = ""
		}
		if def != "" {
			def = " (default " + def + ")"
		}
		fmt.Fprintf(w, "  --%-20s %s%s\n", f.Name, f.Usage, def)
	})
	fmt.Fprint(w, `
Exit status: the agent's own, except where the wrapper acted: 124 hang
killed; 0 when the agent answered but had to be stopped; 128+n after signal
n; 141 (74) when stdout was closed (failed). In direct mode with
stream-json, an agent that exits 0 without a result gets 1 (its stream was
cut short). The wrapper's own: 125 a bad flag or config; 126 agent not
executable; 127 agent not found; 2 an unknown command or a subcommand's
usage error.
`)
}

// subUsage prints a subcommand's usage line and its flags.
func subUsage(w io.Writer, line string, fs *flag.FlagSet) {
	fmt.Fprintln(w, line)
	fs.VisitAll(func(f *flag.Flag) {
		def := ""
		if f.DefValue != "" && !(isBool(f) && f.DefValue == "false") {
			def = " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  --%-20s %s%s\n", f.Name, f.Usage, def)
	})
}
