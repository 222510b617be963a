// Package doctor is the command `cursor-wrap doctor`: it checks the
// installation, one line per check, each failure with its fix.
package doctor

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
	"cursor-wrap/words"
)

// Command is `cursor-wrap doctor`.
var Command = cli.Command{
	Name: "doctor", Args: "[--shell bash|zsh|fish] [--config FILE] [--agent-bin PATH]",
	Summary: "check the installation",
	Flags:   cli.Declares(declare), Run: Run,
}

// options are the flags of doctor: the wrapper's, and --shell.
type options struct {
	cli.Options
	shell string
}

// declare declares the flags of doctor.
func declare(fs *flag.FlagSet) *options {
	var o options
	o.Options.Declare(fs)
	fs.StringVar(&o.shell, "shell", "", "the shell whose cursor-agent to check: "+strings.Join(shellhook.Shells(), ", ")+
		" (default: the one doctor was started from, else $SHELL's, else the password database's)")
	return &o
}

// Run checks the installation, one line per check, each ✗ with a fix.
// It exits 0 when every check holds, 1 otherwise.
func Run(env *cli.Env, args []string) int {
	o, _, status, done := cli.ParseCommand(env, "doctor", args, declare, true)
	if done {
		return status
	}
	ok := true
	// check prints a ✓ or a ✗ with its fix ("" when what says it).
	check := func(good bool, what, fix string) {
		if good {
			fmt.Fprintf(env.Stdout, "✓ %s\n", what)
			return
		}
		ok = false
		fmt.Fprintf(env.Stdout, "✗ %s\n", what)
		if fix != "" {
			fmt.Fprintf(env.Stdout, "    fix: %s\n", fix)
		}
	}
	// warn prints a ! with its fix: something to know that breaks nothing.
	warn := func(what, fix string) { fmt.Fprintf(env.Stdout, "! %s\n    fix: %s\n", what, fix) }

	cfg, file, err := config.Load(o.Config, o.Settings)
	if err != nil {
		cfg = config.DefaultConfig()
	}
	path := file.Path
	switch {
	case err != nil:
		check(false, "config: "+err.Error(), "edit the file; `"+env.TypedName()+" config --defaults` prints every key at its default")
	case !file.Exists:
		check(true, "config: "+path+" not found; the defaults apply", "")
	default:
		var set []string
		for _, key := range config.Keys() {
			if src := cfg.Source(key); src != config.FromDefault {
				set = append(set, fmt.Sprintf("%s=%s (%s)", key, cfg.Shown(key), src))
			}
		}
		check(true, "config: "+path+" is valid; set: "+orNone(strings.Join(set, ", ")), "")
	}

	for _, w := range cli.UnknownEnv(os.Environ()) {
		check(false, w, "unset it, or give it the setting's name: `"+env.TypedName()+" config` lists them")
	}

	cmd, err := job.Resolve(cfg, job.Request{Alias: true})
	profile, bin := cmd.Profile, cmd.Path
	if profile == nil {
		profile = stream.Cursor
	}
	funcs := shellhook.Binaries(profile, "")
	if err != nil {
		// The error says how to install the agent or point agent_bin at it.
		fix := ""
		if errors.Is(err, reaper.ErrNotFound) && profile == stream.Cursor {
			fix = "install it as the line above says, or try the wrapper without it first: `" + env.TypedName() + " demo --install-agent`"
		}
		check(false, err.Error(), fix)
	} else {
		out, err := runFor(5*time.Second, bin, "--version")
		if version := firstLine(out); err != nil {
			check(false, "agent: "+bin+" --version failed: "+orNone(version)+" ("+err.Error()+")",
				"run `"+bin+" --version` to see why: the agent may need reinstalling, or agent_bin pointing at a working one")
		} else if cmd.Demo {
			check(true, "agent: the demo agent, "+bin+" ("+orNone(version)+"): it stands in for cursor-agent, which is not installed, and changes nothing; `"+
				env.TypedName()+" demo --remove-agent` removes it, and Cursor's agent installs with `"+stream.Cursor.Install+"`", "")
		} else {
			check(true, "agent: "+bin+" ("+orNone(version)+")", "")
		}
	}

	shell := o.shell
	if shell == "" {
		var why string
		if shell, why = shellhook.UserShell(); shell != "" {
			fmt.Fprintf(env.Stdout, "  (the shell checked: %s, %s)\n", shell, why)
		}
	}
	checkShell(env, check, warn, shell, funcs[0])

	logsWritable, logsState := logDirState(cfg.LogDir)
	check(logsWritable, logsState, "make "+cfg.LogDir+" writable, or set log_dir")
	if old := config.OldLogDir(); cfg.Source("log_dir") == config.FromDefault && cfg.LogDir == old {
		// Not a failure: the logs are written. But they are not where the
		// docs say, and the move is the user's to make.
		fmt.Fprintf(env.Stdout, "! session logs go to %s, where earlier versions wrote them, as long as it exists; the place for them is now %s\n    move them: %s\n",
			cli.Tilde(old), cli.Tilde(config.StateLogDir()), moveLogs(old, config.StateLogDir()))
	}

	master, slave, err := pty.Open()
	if err == nil {
		master.Close()
		slave.Close()
	}
	ptyFix := "mount devpts at /dev/pts"
	if runtime.GOOS == "darwin" {
		ptyFix = "close terminals you do not use, or raise `sysctl kern.tty.ptmx_max`"
	}
	check(err == nil, "pseudo-terminals can be opened", fmt.Sprintf("%v: %s", err, ptyFix))

	check(ptyproxy.ProbeCheck())
	checkTelemetry(check, warn, cfg)
	// Not a failure: without it a thinking model is judged by idle_timeout.
	if good, what, fix := ptyproxy.ConnCheck(); good {
		check(true, what, "")
	} else {
		warn(what, fix)
	}
	if !ok {
		return 1
	}
	return 0
}

func runFor(d time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := reaper.CommandContext(ctx, name, args...)
	cmd.KillGroup() // A broken agent's --version may leave a daemon.
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// firstLine is the first line of what a program printed, as a terminal
// may show it (words.Display): a broken agent's --version can print
// anything.
func firstLine(s string) string {
	return words.FirstLine(s, 200)
}

// checkShell checks that a new shell, started as a terminal starts it,
// finds cursor-wrap on PATH and has the function name that runs it. Not
// on PATH is only a warning: the line the installer adds names the wrapper
// by its path, and the README calls that setup supported.
func checkShell(env *cli.Env, check func(good bool, what, fix string), warn func(what, fix string), shell, name string) {
	self := env.Self()
	// The startup files are under the home the shell will have: never
	// relative to where doctor runs, with HOME unset.
	home, err := config.Home()
	if err != nil {
		check(false, "a new "+shell+" has a home directory for its startup files: "+err.Error(), "set HOME")
		return
	}
	getenv := func(key string) string {
		if key == "HOME" {
			return home
		}
		return os.Getenv(key)
	}
	// A new terminal window starts a login shell on macOS, another
	// interactive shell elsewhere; tmux, ssh and a console start login
	// shells everywhere. The first is checked in full, the other after.
	login := runtime.GOOS == "darwin"
	rc := shellhook.RCFile(shell, login, getenv)
	if rc == "" {
		check(false, fmt.Sprintf("%s in %s goes through the wrapper", name, orNone(shell)),
			"cursor-wrap has functions for bash, zsh and fish: run `"+env.TypedName()+" doctor --shell NAME` for the one you use")
		return
	}
	path := os.Getenv("SHELL")
	if filepath.Base(path) != shell {
		if path, _ = exec.LookPath(shell); path == "" {
			check(false, shell+" is not installed", "install it, or run `"+env.TypedName()+" doctor --shell NAME` for the shell you use")
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fresh, err := shellhook.NewShell(ctx, path, login, name, home, os.Environ())
	if err != nil {
		check(false, "a new "+shell+" starts: "+err.Error(), "fix what it says in "+cli.Tilde(rc)+" or another file it reads")
		return
	}

	line := "`" + shellhook.InitLine(shell, self, home) + "`"
	dir := filepath.Dir(self)
	addDir := fmt.Sprintf("add %s to PATH in %s: %s", cli.Tilde(dir), cli.Tilde(rc), pathLine(shell, dir, home))
	if fresh.Wrapper == "" {
		warn("a new "+shell+" does not find cursor-wrap on PATH ("+fresh.PATH+"), so typing cursor-wrap there needs its full path ("+self+")", addDir)
	} else {
		other := ""
		if !cli.SameFile(fresh.Wrapper, self) {
			other = " (another file than this one, " + self + ")"
		}
		check(true, "a new "+shell+" finds cursor-wrap: "+fresh.Wrapper+other, "")
	}

	what := fmt.Sprintf("%s in a new %s", name, shell)
	embedded := shellhook.EmbeddedWrapper(fresh.Function)
	runs := fresh.Wrapper
	if executable(embedded) {
		runs = embedded
	}
	file, n, found := shellhook.FindInitLine(shellhook.StartupFiles(shell, getenv))
	ours := strings.Contains(fresh.Function, "--alias") // The wrapper's function, not one of the user's.
	switch {
	case ours && fresh.Alias != "":
		check(false, what+" is the alias "+fresh.Alias+", which hides the wrapper's function",
			"remove that alias from the files "+shell+" reads at start")
	case ours && runs != "":
		check(true, what+" goes through the wrapper: "+runs, "")
		checkOtherShell(check, self, path, shell, name, line, !login, getenv)
		return
	case ours:
		check(false, what+" runs the real agent unwatched: no cursor-wrap at "+orNone(embedded)+" nor on PATH",
			"install cursor-wrap again (scripts/install.sh), or put "+line+" in "+cli.Tilde(rc))
	case fresh.Function != "":
		check(false, what+" is a function of its own that does not run cursor-wrap",
			"remove it, or put "+line+" after it in "+cli.Tilde(rc))
	case found != "" && fresh.Wrapper == "" && !strings.Contains(found, "/cursor-wrap"):
		check(false, fmt.Sprintf("%s does not go through the wrapper: %s:%d runs cursor-wrap by name, and a new %s does not find it on PATH", what, cli.Tilde(file), n, shell),
			"replace that line with "+line+" (it names the wrapper by its path), or "+addDir)
	case found != "":
		check(false, fmt.Sprintf("%s does not go through the wrapper, though %s:%d loads its functions: %s", what, cli.Tilde(file), n, strings.TrimSpace(found)),
			"the cursor-wrap that line names is gone or the line is not reached: replace it with "+line+" (scripts/install.sh does it)")
	default:
		check(false, what+" does not go through the wrapper", "add "+line+" to "+cli.Tilde(rc)+" (scripts/install.sh does it)")
	}
	if other := shellhook.RCFile(shell, !login, getenv); other != rc {
		checkOtherShell(check, self, path, shell, name, line, !login, getenv)
	}
}

// checkOtherShell checks the kind of new shell checkShell did not: a login
// one (tmux, ssh, a console) or not. bash reads other files in each
// (~/.bash_profile or ~/.profile, ~/.bashrc); zsh and fish the same ones,
// so that when the first fails, the other is checked only in bash, where
// the fix of the first does not mend it.
func checkOtherShell(check func(good bool, what, fix string), self, path, shell, name, line string, login bool, getenv func(string) string) {
	what := name + " in a new non-login " + shell
	if login {
		what = name + " in a new login " + shell + " (tmux, ssh, a console)"
	}
	rc := shellhook.RCFile(shell, login, getenv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fresh, err := shellhook.NewShell(ctx, path, login, name, getenv("HOME"), os.Environ())
	runs := shellhook.EmbeddedWrapper(fresh.Function)
	if !executable(runs) {
		runs = fresh.Wrapper
	}
	switch {
	case err != nil:
		check(false, what+" starts: "+err.Error(), "fix what it says in "+cli.Tilde(rc)+" or another file it reads")
	case strings.Contains(fresh.Function, "--alias") && fresh.Alias == "" && runs != "":
		check(true, what+" goes through the wrapper too", "")
	case shell == "bash" && login && shellhook.BashLoginFile(getenv("HOME")) == "":
		check(false, what+" does not go through the wrapper: it reads ~/.bashrc only when ~/.bash_profile, ~/.bash_login or ~/.profile sources it, and there is none",
			"create ~/.bash_profile with the line "+line+" (scripts/install.sh does it), or with `. ~/.bashrc`")
	case shell == "bash" && login && rc != getenv("HOME")+"/.bashrc":
		if filepath.Base(rc) == ".profile" {
			// sh and dash read it too.
			line = "`" + shellhook.ProfileLine(self, getenv("HOME")) + "`"
		}
		check(false, what+" does not go through the wrapper: it reads "+cli.Tilde(rc)+", not ~/.bashrc",
			"add "+line+" to "+cli.Tilde(rc)+" (scripts/install.sh does it)")
	default:
		check(false, what+" does not go through the wrapper", "add "+line+" to "+cli.Tilde(rc)+" (scripts/install.sh does it)")
	}
}

// moveLogs is the command that moves the session logs from old to dir.
func moveLogs(old, dir string) string {
	if _, err := os.Stat(dir); err == nil {
		// Both exist: the logs join those already there.
		if len(sessionlog.List(old)) == 0 {
			return "rmdir " + homeQuote(old)
		}
		return fmt.Sprintf("mv %s/cursor-wrap-*.jsonl %s/ && rmdir %s", homeQuote(old), homeQuote(dir), homeQuote(old))
	}
	return fmt.Sprintf("mkdir -p %s && mv %s %s", homeQuote(filepath.Dir(dir)), homeQuote(old), homeQuote(dir))
}

// homeQuote writes a path for a shell command line: under HOME as
// "$HOME/…", which bash, zsh and fish all expand, else quoted as needed.
func homeQuote(path string) string {
	if p, ok := underHome(path, os.Getenv("HOME")); ok {
		return `"` + p + `"`
	}
	return job.ShellWords([]string{path})
}

// underHome writes a path under home as $HOME/…, when the rest can stand
// between double quotes as it is.
func underHome(path, home string) (string, bool) {
	rest, ok := strings.CutPrefix(path, home+"/")
	if !ok || home == "" || strings.ContainsAny(rest, "\"$`!\\") {
		return "", false
	}
	return "$HOME/" + rest, true
}

// pathLine is the startup-file line that puts dir on PATH in shell.
func pathLine(shell, dir, home string) string {
	if p, ok := underHome(dir, home); ok {
		dir = p
	}
	if shell == "fish" {
		return `fish_add_path "` + dir + `"`
	}
	return `export PATH="` + dir + `:$PATH"`
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return path != "" && err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// logDirState proves, as a run would, that session logs can be written
// in the log dir dir, and says what is there.
func logDirState(dir string) (bool, string) {
	logs, err := sessionlog.Probe(dir)
	if err != nil {
		return false, "log dir " + dir + ": " + err.Error()
	}
	fi, err := os.Stat(logs)
	if err != nil {
		return false, "log dir " + dir + ": " + err.Error()
	}
	var st unix.Statfs_t
	free := "unknown"
	if unix.Statfs(logs, &st) == nil {
		free = fmt.Sprintf("%.1f GiB", float64(st.Bavail)*float64(st.Bsize)/(1<<30))
	}
	mode := fi.Mode().Perm().String()
	if fi.Mode().Perm() != 0o700 {
		mode += " (logs hold prompts: 0700 is safer)"
	}
	where := "log dir " + dir
	if logs != dir {
		where += " (shared: the logs go in " + logs + ")"
	}
	return true, fmt.Sprintf("%s: writable, mode %s, %d logs, %s free", where, mode, len(sessionlog.List(dir)), free)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
