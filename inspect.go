package main

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/sessionlog"
)

// inspect prints a session log as a timeline:
// cursor-wrap inspect [--json] [--gap 10s] FILE | --last | --last-hang.
func inspect(args []string) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the timeline as one JSON document")
	last := fs.Bool("last", false, "inspect the newest log in the log dir")
	lastHang := fs.Bool("last-hang", false, "inspect the newest log in the log dir of a session that hung")
	gap := fs.Duration("gap", 10*time.Second, "mark silences at least this long")
	logDir := fs.String("log-dir", "", "the log dir for --last (default: log_dir of the config)")
	config := fs.String("config", "", "config file, for log_dir")
	const usageLine = "usage: cursor-wrap inspect [--json] [--gap 10s] FILE | --last | --last-hang"
	if err := fs.Parse(args); err != nil || *last && *lastHang || (*last || *lastHang) == (fs.NArg() == 1) || fs.NArg() > 1 {
		return fail(job.ExitUsage, usageLine)
	}
	path := fs.Arg(0)
	if *last || *lastHang {
		dir, err := logDirOf(*logDir, *config)
		if err != nil {
			return fail(job.ExitWrapper, "%v", err)
		}
		if *lastHang {
			hangs := job.Hangs(dir, 1)
			if len(hangs) == 0 {
				return fail(1, "no session in %s hung", dir)
			}
			path = hangs[0].LogPath
		} else if path, err = sessionlog.Latest(dir); err != nil {
			return fail(1, "%v", err)
		}
	}
	t, err := sessionlog.Read(path, *gap)
	if err != nil {
		return fail(1, "%v", err)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(t); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	t.Format(os.Stdout, *gap, term.IsTerminal(1))
	return 0
}
