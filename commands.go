package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/shellhook"
)

// shellInit prints the shell functions: cursor-wrap shell-init SHELL [--agents a,b].
func shellInit(args []string) int {
	fs := flag.NewFlagSet("shell-init", flag.ContinueOnError)
	agents := fs.String("agents", "cursor", "agents to define functions for, comma-separated: "+strings.Join(shellhook.Agents(), ", "))
	usageLine := fmt.Sprintf("usage: cursor-wrap shell-init %s [--agents %s]", strings.Join(shellhook.Shells(), "|"), strings.Join(shellhook.Agents(), ","))
	shell, rest := "", args
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		shell, rest = rest[0], rest[1:]
	}
	if status, done := parseSub(fs, rest, "shell-init", usageLine, false); done {
		return status
	}
	switch {
	case shell == "":
		return fail(job.ExitUsage, "shell-init: which shell? %s", usageLine)
	case fs.NArg() > 0:
		return fail(job.ExitUsage, "shell-init: unexpected %q\n%s", fs.Arg(0), usageLine)
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
	initFile := fs.Bool("init", false, "write a commented config file with the defaults (never overwrites)")
	const usageLine = "usage: cursor-wrap config [--init] [--config FILE] [flags]"
	if status, done := parseSub(fs, args, "config", usageLine, true); done {
		return status
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

// version prints the version: cursor-wrap version, or --version.
func version(args []string) int {
	if status, done := noArgs(args, "version", " (or --version): the version, and for a build from a checkout its commit"); done {
		return status
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Println(versionText(bi))
	return 0
}

// pseudoVersion matches the version Go makes up for a build that is not
// at a tag: v0.0.0-20251126063100-fc58e00c1234.
var pseudoVersion = regexp.MustCompile(`-\d{14}-[0-9a-f]{12}`)

// versionText is the version line: the module's version from the build
// info, "devel" for a build from a checkout that is not at a tag, with the
// commit and whether the tree had changes in it, and the Go that built it.
func versionText(bi *debug.BuildInfo) string {
	if bi == nil {
		return "cursor-wrap (no build information), " + runtime.Version()
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" || pseudoVersion.MatchString(v) {
		v = "devel"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	s := "cursor-wrap " + v
	if rev := settings["vcs.revision"]; rev != "" {
		s += ", commit " + rev[:min(12, len(rev))]
		if settings["vcs.modified"] == "true" {
			s += " with uncommitted changes"
		}
		if t := settings["vcs.time"]; t != "" {
			s += " (" + t + ")"
		}
	}
	return s + ", " + bi.GoVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
}
