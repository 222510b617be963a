package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
)

// doctor checks the installation, one line per check, each ✗ with a fix.
// It exits 0 when every check holds, 1 otherwise.
func doctor(args []string) int {
	var o options
	fs := newFlagSet(&o)
	fs.SetOutput(io.Discard)
	shell := fs.String("shell", filepath.Base(os.Getenv("SHELL")), "the shell whose cursor-agent to check: "+strings.Join(shellhook.Shells(), ", "))
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return fail(job.ExitUsage, "usage: cursor-wrap doctor [--shell bash|zsh|fish] [--config FILE] [--agent-bin PATH]")
	}
	ok := true
	check := func(good bool, what, fix string) {
		if good {
			fmt.Printf("✓ %s\n", what)
			return
		}
		ok = false
		fmt.Printf("✗ %s\n    fix: %s\n", what, fix)
	}

	cfg, file, err := job.Load(o.config, o.settings)
	if err != nil {
		cfg = job.DefaultConfig()
	}
	path := file.Path
	switch {
	case err != nil:
		check(false, "config: "+err.Error(), "edit the file; `cursor-wrap config --init` shows every key")
	case !file.Exists:
		check(true, "config: "+path+" not found; the defaults apply", "")
	default:
		var set []string
		for _, key := range job.Keys() {
			if src := cfg.Source(key); src != job.FromDefault {
				set = append(set, fmt.Sprintf("%s=%s (%s)", key, cfg.Value(key), src))
			}
		}
		check(true, "config: "+path+" is valid; set: "+orNone(strings.Join(set, ", ")), "")
	}

	cmd, err := job.Resolve(cfg, job.Request{Alias: true})
	profile, bin := cmd.Profile, cmd.Path
	if profile == nil {
		profile = stream.Cursor
	}
	funcs, _ := shellhook.Binaries(profile.Name, "")
	if err != nil {
		check(false, "agent: "+err.Error(), "install "+funcs[0]+", or set agent_bin in "+path)
	} else {
		version := firstLine(runFor(5*time.Second, bin, "--version"))
		check(true, "agent: "+bin+" ("+orNone(version)+")", "")
	}

	check(shellFunctionActive(*shell, funcs[0]), fmt.Sprintf("%s in %s goes through the wrapper", funcs[0], orNone(*shell)),
		fmt.Sprintf("add `%s` to your %s startup file (scripts/install.sh does it)", shellInitLine(*shell), orNone(*shell)))

	check(logDirWritable(cfg.LogDir), logDirState(cfg.LogDir), "make "+cfg.LogDir+" writable, or set log_dir")

	master, slave, err := pty.Open()
	if err == nil {
		master.Close()
		slave.Close()
	}
	check(err == nil, "pseudo-terminals can be opened", fmt.Sprintf("%v: mount devpts at /dev/pts", err))

	check(ptyproxy.ProbeAvailable(), "/proc tells the agent's CPU time and bytes read (activity evidence)",
		"mount /proc; without it a silent agent is judged by the idle timeout alone")
	if !ok {
		return 1
	}
	return 0
}

func runFor(d time.Duration, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out, _ := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func shellInitLine(shell string) string {
	if shell == "fish" {
		return "cursor-wrap shell-init fish | source"
	}
	return `eval "$(cursor-wrap shell-init ` + shell + `)"`
}

// shellFunctionActive asks an interactive shell, which reads the user's
// startup files, whether name is the wrapper's function.
func shellFunctionActive(shell, name string) bool {
	var out string
	switch shell {
	case "bash", "zsh":
		out = runFor(5*time.Second, shell, "-ic", "type "+name)
	case "fish":
		out = runFor(5*time.Second, shell, "-ic", "functions "+name)
	default:
		return false
	}
	return strings.Contains(out, "cursor-wrap --alias")
}

func logDirWritable(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	f, err := os.CreateTemp(dir, ".doctor-")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

func logDirState(dir string) string {
	fi, err := os.Stat(dir)
	if err != nil {
		return "log dir " + dir + ": " + err.Error()
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "cursor-wrap-*.jsonl"))
	var st unix.Statfs_t
	free := "unknown"
	if unix.Statfs(dir, &st) == nil {
		free = fmt.Sprintf("%.1f GiB", float64(st.Bavail)*float64(st.Bsize)/(1<<30))
	}
	mode := fi.Mode().Perm().String()
	if fi.Mode().Perm() != 0o700 {
		mode += " (logs hold prompts: 0700 is safer)"
	}
	return fmt.Sprintf("log dir %s: writable, mode %s, %d logs, %s free", dir, mode, len(logs), free)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
