// Package configcmd is the command `cursor-wrap config`: the effective
// configuration with each value's source, or a new commented file.
package configcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
)

// Command is `cursor-wrap config`.
var Command = cli.Command{
	Name: "config", Args: "[--init | --defaults] [--config FILE] [flags]",
	Summary: "the effective config, or a new file",
	Flags:   cli.Declares(declare), Run: Run,
}

// options are the flags of config: the wrapper's, and --init.
type options struct {
	cli.Options
	init     bool
	defaults bool
}

// declare declares the flags of config.
func declare(fs *flag.FlagSet) *options {
	var o options
	o.Options.Declare(fs)
	fs.BoolVar(&o.init, "init", false, "write a commented config file with the defaults (never overwrites)")
	fs.BoolVar(&o.defaults, "defaults", false, "print the file --init writes, every key documented at its default, and write nothing")
	return &o
}

// Run prints the effective configuration with each value's source, or
// writes a commented default file with --init, or prints it with
// --defaults (which reads no file: it helps most when the file is broken).
func Run(env *cli.Env, args []string) int {
	o, _, status, done := cli.ParseCommand(env, "config", args, declare, true)
	if done {
		return status
	}
	if o.defaults {
		fmt.Fprint(env.Stdout, config.InitText())
		return 0
	}
	if o.init {
		path := o.Config
		if path == "" {
			var err error
			if path, err = config.DefaultPath(os.Getenv); err != nil {
				return env.Fail(job.ExitWrapper, "%v", err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return env.Fail(job.ExitWrapper, "%v", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return env.Fail(job.ExitWrapper, "%s exists; not overwriting it (`%s config --defaults` prints every key at its default)", path, env.TypedName())
		}
		if err != nil {
			return env.Fail(job.ExitWrapper, "%v", err)
		}
		defer f.Close()
		if _, err := io.WriteString(f, config.InitText()); err != nil {
			return env.Fail(job.ExitWrapper, "%v", err)
		}
		fmt.Fprintf(env.Stderr, "cursor-wrap: wrote %s\n", path)
		return 0
	}
	cfg, file, err := config.Load(o.Config, o.Settings)
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	path := file.Path
	state := "not found, defaults apply"
	if file.Exists {
		state = "loaded"
	}
	fmt.Fprintf(env.Stdout, "# config file: %s (%s)\n", path, state)
	for _, key := range config.Keys() {
		v := quoteValue(cfg, key)
		if key == config.ToolTimeoutsKey {
			v = cfg.Value(key)
		}
		fmt.Fprintf(env.Stdout, "%-24s = %-24s # %s\n", key, v, cfg.Source(key))
	}
	return 0
}

func quoteValue(cfg config.Config, key string) string {
	v := cfg.Value(key)
	switch {
	case v == "true", v == "false", strings.HasPrefix(v, "["): // A list is TOML already.
		return v
	}
	if strings.Trim(v, "0123456789.") == "" && v != "" {
		return v
	}
	return fmt.Sprintf("%q", v)
}
