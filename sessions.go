package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// sessionsOptions are the flags of sessions.
type sessionsOptions struct {
	json, hung bool
	limit      int
	logDirFlags
}

// sessionsFlags declares the flags of sessions.
func sessionsFlags(fs *flag.FlagSet) *sessionsOptions {
	var o sessionsOptions
	fs.BoolVar(&o.json, "json", false, "print the sessions as one JSON array")
	fs.BoolVar(&o.hung, "hung", false, "list only the sessions that hung")
	fs.IntVar(&o.limit, "limit", 20, "list at most this many sessions")
	o.logDirFlags.declare(fs, "the log dir")
	return &o
}

// sessions lists the recent sessions of the log dir, newest first, one
// line each: cursor-wrap sessions [--json] [--hung] [--limit N].
func sessions(args []string) int {
	o, _, status, done := parse("sessions", args, sessionsFlags, true)
	if done {
		return status
	}
	if o.limit < 1 {
		return cli.Fail(job.ExitUsage, "sessions: --limit %d: list at least 1", o.limit)
	}
	dir, err := o.dir()
	if err != nil {
		return cli.Fail(job.ExitWrapper, "%v", err)
	}
	var list []job.Session
	if o.hung {
		list = job.Hangs(dir, o.limit)
	} else {
		list = job.Sessions(dir, o.limit, nil)
	}
	if o.json {
		if list == nil {
			list = []job.Session{}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return cli.Fail(1, "%v", err)
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(os.Stderr, "cursor-wrap: no sessions in %s\n", dir)
		return 0
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "START\tTOOK\tAGENT\tOUTCOME\tEXIT\tUSAGE\tSESSION\tPROMPT")
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
		// What comes from a log reaches the terminal only as stream.Display
		// shows it: a log holds whatever the agent wrote.
		d := stream.Display
		usage := "not reported"
		if s.Usage != nil {
			usage = s.Usage.Usage().Short()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d(start), took, cmp.Or(d(s.Agent), "-"), d(s.Outcome), status, usage, cmp.Or(d(s.ID), "-"), d(s.Prompt))
	}
	if err := w.Flush(); err != nil {
		return cli.Fail(1, "%v", err)
	}
	return 0
}

// logDirFlags are the flags of a command that reads the log dir.
type logDirFlags struct{ logDir, config string }

// declare declares --log-dir, what describing it, and --config.
func (o *logDirFlags) declare(fs *flag.FlagSet, what string) {
	fs.StringVar(&o.logDir, "log-dir", "", what+" (default: log_dir of the config)")
	fs.StringVar(&o.config, "config", "", "config file, for log_dir")
}

// dir is the log dir the command reads: its --log-dir, else the config's
// log_dir. A config broken elsewhere does not block reading the logs: it
// is said in one warning line, with the dir read instead.
func (o logDirFlags) dir() (string, error) {
	if o.logDir != "" {
		return o.logDir, nil
	}
	cfg, _, err := config.Load(o.config, nil)
	if err == nil || !errors.Is(err, config.ErrConfig) {
		return cfg.LogDir, err
	}
	dir, fbErr := config.FallbackLogDir(o.config)
	if fbErr != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "cursor-wrap: warning: config ignored: %s; reading the logs in %s\n", strings.ReplaceAll(err.Error(), "\n", "; "), dir)
	return dir, nil
}
