package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/watchdog"
)

// sessions lists the recent sessions of the log dir, newest first, one
// line each: cursor-wrap sessions [--json] [--hung] [--limit N].
func sessions(args []string) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the sessions as one JSON array")
	hung := fs.Bool("hung", false, "list only the sessions that hung")
	limit := fs.Int("limit", 20, "list at most this many sessions")
	logDir := fs.String("log-dir", "", "the log dir (default: log_dir of the config)")
	config := fs.String("config", "", "config file, for log_dir")
	const usageLine = "usage: cursor-wrap sessions [--json] [--hung] [--limit N] [--log-dir DIR]"
	if status, done := parseSub(fs, args, "sessions", usageLine, true); done {
		return status
	}
	if *limit < 1 {
		return fail(job.ExitUsage, "sessions: --limit %d: list at least 1", *limit)
	}
	dir, err := logDirOf(*logDir, *config)
	if err != nil {
		return fail(job.ExitWrapper, "%v", err)
	}
	var list []job.Session
	if *hung {
		list = job.Hangs(dir, *limit)
	} else {
		list = job.Sessions(dir, *limit, nil)
	}
	if *asJSON {
		if list == nil {
			list = []job.Session{}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(os.Stderr, "cursor-wrap: no sessions in %s\n", dir)
		return 0
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "START\tTOOK\tAGENT\tOUTCOME\tEXIT\tSESSION\tPROMPT")
	for _, s := range list {
		start := s.Start
		if t, err := time.Parse(time.RFC3339, s.Start); err == nil {
			start = t.Local().Format("2006-01-02 15:04:05")
		}
		status := "-"
		if s.ExitStatus != nil {
			status = strconv.Itoa(*s.ExitStatus)
		}
		took := watchdog.Round(time.Duration(s.DurationMS) * time.Millisecond)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", start, took, cmp.Or(s.Agent, "-"), s.Outcome, status, cmp.Or(s.ID, "-"), s.Prompt)
	}
	if err := w.Flush(); err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// logDirOf is the log dir a subcommand reads: its --log-dir, else the
// config's log_dir.
func logDirOf(flagged, config string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	cfg, _, err := job.Load(config, nil)
	return cfg.LogDir, err
}
