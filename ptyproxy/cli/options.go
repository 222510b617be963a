package cli

import (
	"flag"
	"fmt"
	"slices"
)

// Options are the wrapper's command line, before the config is built;
// config and doctor take them too, as a run reads them.
type Options struct {
	Settings  map[string]string // config keys given as flags, as text
	Config    string
	Model     string
	ModelSet  bool // --model given, not its default
	Workspace string
	Force     bool
	NoForce   bool
	Alias     bool
	Stdin     string
	Version   bool
	AgentArgs []string
	// Dashed says the agent's args came after "--", where they belong.
	Dashed bool
}

// NewFlagSet is the wrapper's flag set, reading into o.
func NewFlagSet(o *Options) *flag.FlagSet {
	fs := flag.NewFlagSet("cursor-wrap", flag.ContinueOnError)
	o.Declare(fs)
	return fs
}

// Declare declares the wrapper's flags on fs, reading into o.
func (o *Options) Declare(fs *flag.FlagSet) {
	o.Settings = map[string]string{}
	SettingFlags(fs, &o.Config, o.Settings)
	fs.StringVar(&o.Model, "model", "", "model passed to the agent in direct mode when its args name none (default: auto for cursor, the agent's own default for the others)")
	fs.StringVar(&o.Workspace, "workspace", "", "workspace passed to the agent in direct mode when its args name none")
	fs.BoolVar(&o.Force, "force", true, "pass --force to the agent in direct mode: it runs commands and edits files without asking")
	fs.BoolVar(&o.NoForce, "no-force", false, "do not pass --force in direct mode (a headless cursor-agent then has its commands rejected)")
	fs.BoolVar(&o.Alias, "alias", false, "alias mode: add nothing to the agent's args; watch only headless runs (used by shell-init)")
	fs.Func("stdin", "auto: a stdin that is not a terminal is copied to the agent and closed at its end (beside a prompt in the args, only if it gives something within --stdin-wait); close: the agent's stdin is empty (default auto)", func(v string) error {
		if v != "auto" && v != "close" {
			return fmt.Errorf("%q is not auto or close", v)
		}
		o.Stdin = v
		return nil
	})
	fs.BoolVar(&o.Version, "version", false, "print the version and exit")
}

// Declares is a command's Flags, from the function that declares its
// flags and returns where they are read into.
func Declares[T any](declare func(*flag.FlagSet) T) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) { declare(fs) }
}

// ParseCommand reads the command line of the command called name with the
// flags declare declares, and returns what it returned and the flag set
// (for the arguments). done says the command ends here, with status:
// --help printed its usage, or a flag was wrong (with noArgs, an argument
// too).
func ParseCommand[T any](env *Env, name string, args []string, declare func(*flag.FlagSet) T, noArgs bool) (o T, fs *flag.FlagSet, status int, done bool) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	o = declare(fs)
	status, done = ParseSub(env, fs, args, name, env.Usage(name), noArgs, inheritedFlags(fs)...)
	return o, fs, status, done
}

// inheritedFlags are the wrapper's flags when fs takes them all (config
// and doctor read the config as a run does), but --config, which their
// usage lines name; none otherwise.
func inheritedFlags(fs *flag.FlagSet) []string {
	var names []string
	NewFlagSet(new(Options)).VisitAll(func(f *flag.Flag) {
		if f.Name != "config" {
			names = append(names, f.Name)
		}
	})
	if slices.ContainsFunc(names, func(n string) bool { return fs.Lookup(n) == nil }) {
		return nil
	}
	return names
}
