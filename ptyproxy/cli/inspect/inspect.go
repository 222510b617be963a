// Package inspect is the command `cursor-wrap inspect`: a run, all its
// attempts, as a timeline or as an HTML page, named by a session log or a
// session id.
package inspect

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"time"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/htmltimeline"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/sessionlog/timeline"
	"cursor-wrap/words"
)

// Command is `cursor-wrap inspect`.
var Command = cli.Command{
	Name: "inspect", Args: "[--json | --html [-o FILE]] [--gap 10s] FILE|SESSION | --last | --last-hang",
	Summary: "a run, all its attempts, as a timeline or an HTML page",
	Flags:   cli.Declares(declare), Run: Run,
}

// options are the flags of inspect.
type options struct {
	json, html, last, lastHang bool
	out                        string
	gap                        time.Duration
	cli.LogDirFlags
}

// declare declares the flags of inspect.
func declare(fs *flag.FlagSet) *options {
	var o options
	fs.BoolVar(&o.json, "json", false, "print the timeline of the log named (of a run, its last attempt) as one JSON document")
	fs.BoolVar(&o.html, "html", false, "write the run as one self-contained HTML page: its tool calls, silences and verdict on a time axis, one lane per attempt")
	fs.StringVar(&o.out, "o", "", "with --html, write the page to this file instead of stdout")
	fs.BoolVar(&o.last, "last", false, "inspect the newest log in the log dir")
	fs.BoolVar(&o.lastHang, "last-hang", false, "inspect the newest log in the log dir of a session that hung")
	fs.DurationVar(&o.gap, "gap", 10*time.Second, "mark silences at least this long")
	o.LogDirFlags.Declare(fs, "the log dir for --last and a SESSION id")
	return &o
}

// Run prints a run as a timeline, each of its attempts in turn:
// cursor-wrap inspect [--json | --html [-o FILE]] [--gap 10s] FILE|SESSION | --last | --last-hang.
// A FILE that exists wins over a SESSION id of the same name; an id may be
// cut to a prefix that names one run.
func Run(env *cli.Env, args []string) int {
	o, flags, status, done := cli.ParseCommand(env, "inspect", args, declare, false)
	if done {
		return status
	}
	inspectUsage := env.Usage("inspect")
	newest := o.last || o.lastHang
	switch {
	case o.last && o.lastHang:
		return env.Fail(job.ExitUsage, "inspect: --last or --last-hang, not both\n%s", inspectUsage)
	case newest && flags.NArg() > 0:
		return env.Fail(job.ExitUsage, "inspect: --last or a FILE, not both\n%s", inspectUsage)
	case !newest && flags.NArg() == 0:
		return env.Fail(job.ExitUsage, "inspect: which run? Give a log's FILE or a SESSION id, or --last for the newest\n%s", inspectUsage)
	case o.json && o.html:
		return env.Fail(job.ExitUsage, "inspect: --json or --html, not both\n%s", inspectUsage)
	case o.out != "" && !o.html:
		return env.Fail(job.ExitUsage, "inspect: -o names the file --html writes; give --html too\n%s", inspectUsage)
	case flags.NArg() > 1:
		return env.Fail(job.ExitUsage, "inspect: one FILE at a time, not %d\n%s", flags.NArg(), inspectUsage)
	}
	path := flags.Arg(0)
	if !newest {
		var status int
		if path, status = pick(env, o, path); path == "" {
			return status
		}
	}
	if newest {
		dir, err := o.Dir(env)
		if err != nil {
			return env.Fail(job.ExitWrapper, "%v", err)
		}
		if o.lastHang {
			hangs := sessionlog.Hangs(dir, 1)
			if len(hangs) == 0 {
				return env.Fail(1, "no session in %s hung", cli.Tilde(dir))
			}
			path = hangs[0].LogPath
		} else {
			logs := sessionlog.List(dir)
			if len(logs) == 0 {
				return env.Fail(1, "no session logs in %s yet: a run through cursor-wrap writes one", cli.Tilde(dir))
			}
			path = logs[0]
		}
	}
	t, err := timeline.Read(path, o.gap)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return env.Fail(1, "cannot read %s: %v", path, pe.Err)
		}
		return env.Fail(1, "%v", err)
	}
	if t.Start.IsZero() {
		// Not one record: a timeline of nothing would read as a session
		// that did nothing.
		if t.Stopped == nil {
			return env.Fail(1, "%s is empty: it holds no session log record", path)
		}
		return env.Fail(1, "%s is not a cursor-wrap session log: %s", path, t.Stopped.Error)
	}
	if o.html {
		return writeHTML(env, t.Attempts(o.gap), o.out, o.gap)
	}
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(t); err != nil {
			return env.Fail(1, "%v", err)
		}
		return 0
	}
	run := t.Attempts(o.gap)
	if len(run) == 1 {
		t.Format(env.Stdout, o.gap, cli.Colour(env.Stdout))
		return 0
	}
	// The whole run: how it ended, then each attempt's timeline.
	s := sessionlog.RunSession(logsOf(run))
	usage := "not reported"
	if s.Usage != nil {
		usage = s.Usage.Usage().Short()
	}
	fmt.Fprintf(env.Stdout, "run      %s  (%s)\nended    %s after %s; usage %s\n", cmp.Or(words.Display(s.Run), "-"),
		words.Display(s.Agent), words.Display(s.Told()), words.Duration(time.Duration(s.DurationMS)*time.Millisecond), usage)
	for i, a := range run {
		fmt.Fprintf(env.Stdout, "\n── attempt %d of %d", i+1, len(run))
		if why := s.Attempts[i].Restart; why != "" {
			fmt.Fprintf(env.Stdout, ": %s", words.Display(why))
		}
		fmt.Fprint(env.Stdout, "\n\n")
		a.Format(env.Stdout, o.gap, cli.Colour(env.Stdout))
	}
	return 0
}

// logsOf is the logs of a run's attempts.
func logsOf(run []*timeline.Timeline) []string {
	paths := make([]string, len(run))
	for i, t := range run {
		paths[i] = t.Path
	}
	return paths
}

// writeHTML writes the page of a run's attempts to out ("" for stdout).
func writeHTML(env *cli.Env, run []*timeline.Timeline, out string, gap time.Duration) int {
	page, err := htmltimeline.Page(run, gap)
	if err != nil {
		return env.Fail(1, "%v", err)
	}
	if out == "" {
		if _, err := env.Stdout.Write(page.Bytes()); err != nil {
			return env.Fail(1, "writing the page: %v", err)
		}
		return 0
	}
	if err := os.WriteFile(out, page.Bytes(), 0o600); err != nil {
		return env.Fail(1, "%v", err)
	}
	return 0
}
