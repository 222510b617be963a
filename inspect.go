package main

import (
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"time"

	"golang.org/x/term"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/sessionlog"
)

const inspectUsage = "usage: cursor-wrap inspect [--json] [--gap 10s] FILE | --last | --last-hang"

// inspect prints a session log as a timeline:
// cursor-wrap inspect [--json] [--gap 10s] FILE | --last | --last-hang.
func inspect(args []string) int {
	flags := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := flags.Bool("json", false, "print the timeline as one JSON document")
	last := flags.Bool("last", false, "inspect the newest log in the log dir")
	lastHang := flags.Bool("last-hang", false, "inspect the newest log in the log dir of a session that hung")
	gap := flags.Duration("gap", 10*time.Second, "mark silences at least this long")
	logDir := flags.String("log-dir", "", "the log dir for --last (default: log_dir of the config)")
	config := flags.String("config", "", "config file, for log_dir")
	if status, done := parseSub(flags, args, "inspect", inspectUsage, false); done {
		return status
	}
	newest := *last || *lastHang
	switch {
	case *last && *lastHang:
		return fail(job.ExitUsage, "inspect: --last or --last-hang, not both\n%s", inspectUsage)
	case newest && flags.NArg() > 0:
		return fail(job.ExitUsage, "inspect: --last or a FILE, not both\n%s", inspectUsage)
	case !newest && flags.NArg() == 0:
		return fail(job.ExitUsage, "inspect: which log? Give its FILE, or --last for the newest\n%s", inspectUsage)
	case flags.NArg() > 1:
		return fail(job.ExitUsage, "inspect: one FILE at a time, not %d\n%s", flags.NArg(), inspectUsage)
	}
	path := flags.Arg(0)
	if newest {
		dir, err := logDirOf(*logDir, *config)
		if err != nil {
			return fail(job.ExitWrapper, "%v", err)
		}
		if *lastHang {
			hangs := job.Hangs(dir, 1)
			if len(hangs) == 0 {
				return fail(1, "no session in %s hung", tilde(dir))
			}
			path = hangs[0].LogPath
		} else {
			logs := sessionlog.List(dir)
			if len(logs) == 0 {
				return fail(1, "no session logs in %s yet: a run through cursor-wrap writes one", tilde(dir))
			}
			path = logs[0]
		}
	}
	t, err := sessionlog.Read(path, *gap)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fail(1, "cannot read %s: %v", path, pe.Err)
		}
		return fail(1, "%v", err)
	}
	if t.Start.IsZero() {
		// Not one record: a timeline of nothing would read as a session
		// that did nothing.
		if t.Stopped == nil {
			return fail(1, "%s is empty: it holds no session log record", path)
		}
		return fail(1, "%s is not a cursor-wrap session log: %s", path, t.Stopped.Error)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(t); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	t.Format(os.Stdout, *gap, term.IsTerminal(1) && os.Getenv("NO_COLOR") == "")
	return 0
}
