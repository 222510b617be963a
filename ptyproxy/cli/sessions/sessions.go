// Package sessions is the command `cursor-wrap sessions`: the recent runs
// of the log dir, newest first, one line each, their attempts inside.
package sessions

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/words"
)

// Command is `cursor-wrap sessions`.
var Command = cli.Command{
	Name: "sessions", Args: "[--json] [--attempts] [--hung] [--since 7d|DATE] [--agent A] [--limit N] [--log-dir DIR]",
	Summary: "the recent runs, one line each, their restarts told",
	Flags:   cli.Declares(declare), Run: Run,
}

// options are the flags of sessions.
type options struct {
	json, hung, attempts bool
	since, agent         string
	limit                int
	cli.LogDirFlags
}

// declare declares the flags of sessions.
func declare(fs *flag.FlagSet) *options {
	var o options
	fs.BoolVar(&o.json, "json", false, "print the sessions as one JSON array")
	fs.BoolVar(&o.attempts, "attempts", false, "list each run's attempts under it")
	fs.BoolVar(&o.hung, "hung", false, "list only the runs in which an attempt hung")
	fs.StringVar(&o.since, "since", "", "only the runs started since a date (2026-11-20) or for a time back (7d, 36h)")
	fs.StringVar(&o.agent, "agent", "", "only the runs of this agent")
	fs.IntVar(&o.limit, "limit", 20, "list at most this many runs")
	o.LogDirFlags.Declare(fs, "the log dir")
	return &o
}

// Run lists the recent runs of the log dir, newest first, one line each:
// cursor-wrap sessions [--json] [--attempts] [--hung] [--since 7d]
// [--agent A] [--limit N].
func Run(env *cli.Env, args []string) int {
	o, _, status, done := cli.ParseCommand(env, "sessions", args, declare, true)
	if done {
		return status
	}
	if o.limit < 1 {
		return env.Fail(job.ExitUsage, "sessions: --limit %d: list at least 1", o.limit)
	}
	since, err := cli.ParseSince(o.since, time.Now())
	if err != nil {
		return env.Fail(job.ExitUsage, "sessions: --since %s: %v\n%s", o.since, err, env.Usage("sessions"))
	}
	dir, err := o.Dir(env)
	if err != nil {
		return env.Fail(job.ExitWrapper, "%v", err)
	}
	list := sessionlog.Sessions(dir, sessionlog.Query{Limit: o.limit, Since: since, Agent: o.agent, Hung: o.hung}, nil)
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
		row(w, words.Display(start), s.Agent, s.Told(), s.DurationMS, s.ExitStatus, s.Usage, s.ID, s.Prompt)
		if !o.attempts {
			continue
		}
		for _, a := range s.Attempts {
			// Under its run: its number, and why it ran in place of a prompt.
			row(w, fmt.Sprintf("  attempt %d", a.Number), "", a.Outcome, a.DurationMS, a.ExitStatus, a.Usage, a.ID, cmp.Or(a.Restart, "-"))
		}
	}
	if err := w.Flush(); err != nil {
		return env.Fail(1, "%v", err)
	}
	return 0
}

// row writes one line of the table, its start as it is. What comes from a
// log reaches the terminal only as words.Display shows it: a log holds
// whatever the agent wrote.
func row(w io.Writer, start, agent, outcome string, ms int64, exit *int, usage *sessionlog.UsageRecord, id, prompt string) {
	status := "-"
	if exit != nil {
		status = strconv.Itoa(*exit)
	}
	took := words.Duration(time.Duration(ms) * time.Millisecond)
	spent := "not reported"
	if usage != nil {
		spent = usage.Usage().Short()
	}
	d := words.Display
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", start, took, cmp.Or(d(agent), "-"), d(outcome), status, spent, cmp.Or(d(id), "-"), d(prompt))
}
