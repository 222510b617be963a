package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/notify"
	"cursor-wrap/shellhook"
)

// A Value says what the value of a flag can be: one of some words, a file
// or a directory; the zero Value is free text.
type Value struct {
	Words     []string
	File, Dir bool
}

// Values are the values of the flags, by name, whose values can be listed
// or are paths; a name means the same in every command that has it.
var Values = map[string]Value{
	"log-level": {Words: []string{"debug", "info", "warn", "error"}},
	"notify-on": {Words: notify.Names(notify.Events)},
	"stdin":     {Words: []string{"auto", "close"}},
	"agent":     {Words: shellhook.Agents()},
	"config":    {File: true},
	"agent-bin": {File: true},
	"log-dir":   {Dir: true},
	"workspace": {Dir: true},
	"shell":     {Words: shellhook.Shells()},
	"o":         {File: true}, // a file written
}

// settingFlag records a config key given on the command line; the value
// is parsed and validated with the rest of the config.
type settingFlag struct {
	s    config.Setting
	into map[string]string
}

func (f settingFlag) String() string     { return "" }
func (f settingFlag) Set(v string) error { f.into[f.s.Key] = v; return nil }
func (f settingFlag) IsBoolFlag() bool   { return f.s.IsBool() }

// SettingFlags declares the settings named by keys (every setting when
// none is named) as flags that record their text into, by key, and
// --config, the config file's path, into configPath.
func SettingFlags(fs *flag.FlagSet, configPath *string, into map[string]string, keys ...string) {
	for _, s := range config.Settings {
		if len(keys) == 0 || slices.Contains(keys, s.Key) {
			fs.Var(settingFlag{s, into}, s.Flag(), s.Doc)
		}
	}
	fs.StringVar(configPath, "config", "", "config file (default $CURSOR_WRAP_CONFIG, else $XDG_CONFIG_HOME/cursor-wrap/config.toml)")
}

// Dashed writes a flag's name as it is typed: a one-letter name with one
// dash (-o), the others with two (--last).
func Dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Parse parses args with fs and says whether "--" ended the flags. Its
// errors name the flag and the fix, which the flag package's do not: an
// unknown flag with the flag meant ("did you mean"), a value missing, a
// bad true/false. sub is the subcommand ("" for the wrapper itself), for
// the advice.
func Parse(fs *flag.FlagSet, args []string, sub string) (dashed bool, err error) {
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
		if IsBool(f) {
			if _, err := strconv.ParseBool(value); hasValue && err != nil {
				return false, fmt.Errorf("%s: %q is not true or false (%s alone means true)", a, value, Dashed(name))
			}
			continue
		}
		if !hasValue {
			// "--" ends the flags: taken for the value, it would leave the
			// agent's args to be blamed as misplaced.
			if i+1 == len(args) || args[i+1] == "--" {
				return false, fmt.Errorf("%s needs a value, as in %s %s", Dashed(name), Dashed(name), Example(f))
			}
			i++
			value = args[i]
		}
		if err := f.Value.Set(value); err != nil {
			return false, fmt.Errorf("%s %s: %s", Dashed(name), value, valueProblem(f, value, err))
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

// ParseSub parses a subcommand's flags with Parse. done says the command
// ends here, with status: --help printed its usage (0), or a flag was
// wrong. With noArgs, an argument besides the flags is wrong too. The
// flags named in inherited are the wrapper's, which the subcommand takes
// as a run does: its usage names them in one line rather than listing them.
func ParseSub(env *Env, fs *flag.FlagSet, args []string, sub, usageLine string, noArgs bool, inherited ...string) (status int, done bool) {
	_, err := Parse(fs, args, sub)
	switch {
	case errors.Is(err, flag.ErrHelp):
		SubUsage(env.Stdout, usageLine, fs, inherited...)
		return 0, true
	case err != nil:
		return env.Fail(job.ExitUsage, "%s: %v", sub, err), true
	case noArgs && fs.NArg() > 0:
		return env.Fail(job.ExitUsage, "%s: unexpected %q\n%s", sub, fs.Arg(0), usageLine), true
	}
	return 0, false
}

// NoArgs reads the command line of a subcommand that takes no arguments.
// done says the command ends here, with status: -h, -help or --help alone
// printed its usage line, sub and what it does (about), or an argument was
// given.
func NoArgs(env *Env, args []string, sub, about string) (status int, done bool) {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		fmt.Fprintln(env.Stdout, "usage: cursor-wrap "+sub+about)
		return 0, true
	case len(args) > 0:
		return env.Fail(job.ExitUsage, "usage: cursor-wrap %s (it takes no arguments)", sub), true
	}
	return 0, false
}

// SubUsage prints a subcommand's usage line and its flags, those named in
// inherited (the wrapper's) in one line at the end.
func SubUsage(w io.Writer, line string, fs *flag.FlagSet, inherited ...string) {
	fmt.Fprintln(w, line)
	fs.VisitAll(func(f *flag.Flag) {
		if slices.Contains(inherited, f.Name) {
			return
		}
		def := ""
		if f.DefValue != "" && !(IsBool(f) && f.DefValue == "false") {
			def = " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  %-22s %s%s\n", Dashed(f.Name), f.Usage, def)
	})
	if len(inherited) > 0 {
		fmt.Fprintf(w, "  and the wrapper's %d other flags (--idle-timeout, --agent-bin, …), as a run reads them: cursor-wrap --help lists them\n", len(inherited))
	}
}

// unknownFlag says a flag is not the command's, with the one meant when it
// is a typo; to the wrapper itself, that the agent's flags go after "--".
func unknownFlag(fs *flag.FlagSet, arg, sub string) error {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := config.Suggest(name, names); s != "" {
		return fmt.Errorf("unknown flag %s: did you mean %s?", arg, Dashed(s))
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

// IsBool says the flag takes no value.
func IsBool(f *flag.Flag) bool {
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

// Example is a value a flag takes, for an error that shows its use.
func Example(f *flag.Flag) string {
	if w, ok := Values[f.Name]; ok {
		switch {
		case w.Words != nil:
			return strings.Join(w.Words, "|")
		case w.Dir:
			return "DIR"
		case w.File:
			return "FILE"
		}
	}
	if s, ok := config.Lookup(strings.ReplaceAll(f.Name, "-", "_")); ok {
		c := config.DefaultConfig()
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
