package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/shellhook"
)

// shellInit prints the shell functions: cursor-wrap shell-init SHELL [--agents a,b].
func shellInit(args []string) int {
	fs := flag.NewFlagSet("shell-init", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	agents := fs.String("agents", "cursor", "agents to define functions for, comma-separated: "+strings.Join(shellhook.Agents(), ", "))
	shell, rest := "", args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		shell, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil || fs.NArg() > 0 || shell == "" {
		return fail(job.ExitUsage, "usage: cursor-wrap shell-init %s [--agents %s]", strings.Join(shellhook.Shells(), "|"), strings.Join(shellhook.Agents(), ","))
	}
	var names []string
	for _, a := range strings.Split(*agents, ",") {
		if a = strings.TrimSpace(a); a != "" {
			names = append(names, a)
		}
	}
	script, err := shellhook.Script(shell, selfPath(), names)
	if err != nil {
		return fail(job.ExitUsage, "%v", err)
	}
	fmt.Print(script)
	return 0
}

// configCmd prints the effective configuration with each value's source,
// or writes a commented default file with --init.
func configCmd(args []string) int {
	var o options
	fs := newFlagSet(&o)
	fs.SetOutput(io.Discard)
	initFile := fs.Bool("init", false, "write a commented config file with the defaults (never overwrites)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return fail(job.ExitUsage, "usage: cursor-wrap config [--init] [--config FILE] [flags]")
	}
	if *initFile {
		path := o.config
		if path == "" {
			path = job.DefaultPath(os.Getenv)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fail(job.ExitWrapper, "%v", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			return fail(job.ExitWrapper, "%s exists; not overwriting it", path)
		}
		if err != nil {
			return fail(job.ExitWrapper, "%v", err)
		}
		defer f.Close()
		if _, err := io.WriteString(f, job.InitText()); err != nil {
			return fail(job.ExitWrapper, "%v", err)
		}
		fmt.Fprintf(os.Stderr, "cursor-wrap: wrote %s\n", path)
		return 0
	}
	cfg, file, err := job.Load(o.config, o.settings)
	if err != nil {
		return fail(job.ExitWrapper, "%v", err)
	}
	path := file.Path
	state := "not found, defaults apply"
	if file.Exists {
		state = "loaded"
	}
	fmt.Printf("# config file: %s (%s)\n", path, state)
	for _, key := range job.Keys() {
		v := quoteValue(cfg, key)
		if key == job.ToolTimeoutsKey {
			v = cfg.Value(key)
		}
		fmt.Printf("%-24s = %-24s # %s\n", key, v, cfg.Source(key))
	}
	return 0
}

func quoteValue(cfg job.Config, key string) string {
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
