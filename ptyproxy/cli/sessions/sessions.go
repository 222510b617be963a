// Package sessions is the command `cursor-wrap sessions`: the recent
// sessions of the log dir, newest first, one line each.
package sessions

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// Command is `cursor-wrap sessions`.
var Command = cli.Command{
	Name: "sessions", Args: "[--json] [--hung] [--limit N] [--log-dir DIR]",
	Summary: "the recent sessions, one line each",
	Flags:   cli.Declares(declare), Run: Run,
}

// options are the flags of sessions.
type options struct {
	json, hung bool
	limit      int
	cli.LogDirFlags
}

// declare declares the flags of sessions.
func declare(fs *flag.FlagSet) *options {
	var o options
	fs.BoolVar(&o.json, "json", false, "print the sessions as one JSON array")
	fs.BoolVar(&o.hung, "hung", false, "list only the sessions that hung")
	fs.IntVar(&o.limit, "limit", 20, "list at most this many sessions")
	o.LogDirFlags.Declare(fs, "the log dir")
	return &o
}

// Run lists the recent sessions of the log dir, newest first, one line
// each: cursor-wrap sessions [--json] [--hung] [--limit N].
func Run(env *cli.Env, args []string) int {
	o, _, status, done := cli.ParseCommand(env, "sessions", args, declare, true)
	if done {
		return status
	}
	if o.limit < 1 {
		return env.Fail(job.ExitUsage, "sessions: --limit %d: list at least 1", o.limit)
	}
	dir, err := o.Dir(env)
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	var list []sessionlog.Session
	if o.hung {
		list = sessionlog.Hangs(dir, o.limit)
	} else {
		list = sessionlog.Sessions(dir, o.limit, nil)
	}
	if o.json {
		if list == nil {
			list = []sessionlog.Session{}
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return env.Fail(1, "%v", err)
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(env.Stderr, "cursor-wrap: no sessions in %s\n", dir)
		return 0
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
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
		return env.Fail(1, "%v", err)
	}
	return 0
}
