package main

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
	"cursor-wrap/shellhook"
)

// shellInitFlags declares the flags of shell-init: the agents.
func shellInitFlags(fs *flag.FlagSet) (agents *string) {
	return fs.String("agents", "cursor", "agents to define functions for, comma-separated: "+strings.Join(shellhook.Agents(), ", "))
}

// shellInit prints the shell functions: cursor-wrap shell-init SHELL [--agents a,b].
func shellInit(args []string) int {
	shell, rest := "", args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		shell, rest = rest[0], rest[1:]
	}
	agents, fs, status, done := parse("shell-init", rest, shellInitFlags, false)
	if done {
		return status
	}
	usageLine := usageOf("shell-init")
	switch {
	case shell == "":
		return cli.Fail(job.ExitUsage, "shell-init: which shell? %s", usageLine)
	case fs.NArg() > 0:
		return cli.Fail(job.ExitUsage, "shell-init: unexpected %q\n%s", fs.Arg(0), usageLine)
	}
	var names []string
	for _, a := range strings.Split(*agents, ",") {
		if a = strings.TrimSpace(a); a != "" {
			names = append(names, a)
		}
	}
	script, err := shellhook.Script(shell, selfPath(), names)
	if err != nil {
		return cli.Fail(job.ExitUsage, "%v", err)
	}
	fmt.Print(script)
	return 0
}

// configOptions are the flags of config: the wrapper's, and --init.
type configOptions struct {
	options
	init     bool
	defaults bool
}

// configFlags declares the flags of config.
func configFlags(fs *flag.FlagSet) *configOptions {
	var o configOptions
	o.options.declare(fs)
	fs.BoolVar(&o.init, "init", false, "write a commented config file with the defaults (never overwrites)")
	fs.BoolVar(&o.defaults, "defaults", false, "print the file --init writes, every key documented at its default, and write nothing")
	return &o
}

// configCmd prints the effective configuration with each value's source,
// or writes a commented default file with --init, or prints it with
// --defaults (which reads no file: it helps most when the file is broken).
func configCmd(args []string) int {
	o, _, status, done := parse("config", args, configFlags, true)
	if done {
		return status
	}
	if o.defaults {
		fmt.Print(config.InitText())
		return 0
	}
	if o.init {
		path := o.config
		if path == "" {
			var err error
			if path, err = config.DefaultPath(os.Getenv); err != nil {
				return cli.Fail(job.ExitWrapper, "%v", err)
			}
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return cli.Fail(job.ExitWrapper, "%v", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return cli.Fail(job.ExitWrapper, "%s exists; not overwriting it (`%s config --defaults` prints every key at its default)", path, typedName())
		}
		if err != nil {
			return cli.Fail(job.ExitWrapper, "%v", err)
		}
		defer f.Close()
		if _, err := io.WriteString(f, config.InitText()); err != nil {
			return cli.Fail(job.ExitWrapper, "%v", err)
		}
		fmt.Fprintf(os.Stderr, "cursor-wrap: wrote %s\n", path)
		return 0
	}
	cfg, file, err := config.Load(o.config, o.settings)
	if err != nil {
		return cli.Fail(job.ExitWrapper, "%v", err)
	}
	path := file.Path
	state := "not found, defaults apply"
	if file.Exists {
		state = "loaded"
	}
	fmt.Printf("# config file: %s (%s)\n", path, state)
	for _, key := range config.Keys() {
		v := quoteValue(cfg, key)
		if key == config.ToolTimeoutsKey {
			v = cfg.Value(key)
		}
		fmt.Printf("%-24s = %-24s # %s\n", key, v, cfg.Source(key))
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

// version prints the version: cursor-wrap version, or --version.
func version(args []string) int {
	if status, done := cli.NoArgs(args, "version", " (or --version): the version, and for a build from a checkout its commit"); done {
		return status
	}
	fmt.Println(cli.Version("cursor-wrap"))
	return 0
}
