// Package reportcmd is the command `cursor-wrap report`: per agent and
// day, how the runs of the log dir ended, their time and their spend.
package reportcmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/sessionlog/report"
	"cursor-wrap/words"
)

// Command is `cursor-wrap report`.
var Command = cli.Command{
	Name: "report", Args: "[--since 7d|DATE] [--agent A] [--json] [--log-dir DIR] [FILE...]",
	Summary: "per agent and day: how the runs ended, their time, their spend",
	Flags:   cli.Declares(declare), Run: Run,
}

// options are the flags of report.
type options struct {
	json         bool
	since, agent string
	cli.LogDirFlags
}

// declare declares the flags of report.
func declare(fs *flag.FlagSet) *options {
	var o options
	fs.BoolVar(&o.json, "json", false, "print the report as one JSON document")
	fs.StringVar(&o.since, "since", "", "only the runs started since a date (2026-11-20) or for a time back (7d, 36h); "+
		"the log dir keeps only the newest log_keep logs (200 by default), and no older run")
	fs.StringVar(&o.agent, "agent", "", "only the runs of this agent")
	o.LogDirFlags.Declare(fs, "the log dir")
	return &o
}

// Run sums up the runs of the log dir (or of the logs given) per agent
// and per day: cursor-wrap report [--since 7d] [--agent A] [--json] [FILE...].
func Run(env *cli.Env, args []string) int {
	o, flags, status, done := cli.ParseCommand(env, "report", args, declare, false)
	if done {
		return status
	}
	since, err := cli.ParseSince(o.since, time.Now())
	if err != nil {
		return env.Fail(job.ExitUsage, "report: --since %s: %v\n%s", o.since, err, env.Usage("report"))
	}
	paths := flags.Args()
	inLogDir := len(paths) == 0
	if inLogDir {
		dir, err := o.Dir(env)
		if err != nil {
			return env.Fail(job.ExitWrapper, "%v", err)
		}
		paths = sessionlog.List(dir)
	}
	attempts, skipped, running := report.ReadAll(paths)
	var kept *keptLogs
	if inLogDir {
		kept = keptOf(o.Config, len(paths), attempts)
	}
	var runs []report.Run
	for _, r := range report.Runs(attempts) {
		if (o.agent == "" || r.Agent == o.agent) && !r.Start.Before(since) {
			runs = append(runs, r)
		}
	}
	groups, total := report.Summarize(runs)
	if o.json {
		doc := Doc{Since: o.since, Agent: o.agent, Logs: len(paths), Skipped: skipped, Running: running,
			Kept: kept, Groups: groups, Total: total}
		if doc.Groups == nil {
			doc.Groups = []report.Group{}
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return env.Fail(1, "%v", err)
		}
		return 0
	}
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, "cursor-wrap: skipped %d %s that %s not read\n", skipped, plural(skipped, "log"), plural(skipped, "does", "do"))
	}
	if running > 0 {
		fmt.Fprintf(env.Stderr, "cursor-wrap: %d %s still running, not counted\n", running, plural(running, "attempt"))
	}
	if len(groups) == 0 {
		fmt.Fprintln(env.Stderr, "cursor-wrap: no runs to report")
	} else {
		writeReport(env.Stdout, groups, total, cli.Colour(env.Stdout))
	}
	if kept != nil {
		fmt.Fprintf(env.Stdout, "oldest log %s: log_keep=%d keeps the newest %d logs (one an attempt); older runs are not in this report\n",
			kept.Oldest.Local().Format("2006-01-02 15:04"), kept.Keep, kept.Keep)
	}
	return 0
}

// Doc is report --json.
type Doc struct {
	Since   string         `json:"since,omitempty"`
	Agent   string         `json:"agent,omitempty"`
	Logs    int            `json:"logs"`
	Skipped int            `json:"skipped"`
	Running int            `json:"running"`
	Kept    *keptLogs      `json:"log_keep,omitempty"`
	Groups  []report.Group `json:"groups"`
	Total   report.Group   `json:"total"`
}

// keptLogs says the log dir holds as many logs as log_keep keeps: older
// ones were removed, and their runs are not in the report, which starts
// at the oldest attempt left.
type keptLogs struct {
	Keep   int       `json:"keep"`
	Oldest time.Time `json:"oldest"`
}

// keptOf is keptLogs for the n logs of the log dir, of which attempts
// read, with log_keep from the config file configPath; nil when log_keep
// removed none of them, or keeps all.
func keptOf(configPath string, n int, attempts []report.Attempt) *keptLogs {
	cfg, _, err := config.Load(configPath, nil)
	if err != nil || cfg.LogKeep <= 0 || n < cfg.LogKeep || len(attempts) == 0 {
		return nil
	}
	k := &keptLogs{Keep: cfg.LogKeep, Oldest: attempts[0].Start}
	for _, a := range attempts[1:] {
		if a.Start.Before(k.Oldest) {
			k.Oldest = a.Start
		}
	}
	return k
}

// writeReport writes the groups as an aligned table, a row each and one for
// the total; the header in bold when bold is set (a terminal).
func writeReport(w io.Writer, groups []report.Group, total report.Group, bold bool) {
	rows := [][]string{{"DAY", "AGENT", "RUNS", "ANSWERED", "HUNG", "AGENT ERROR", "PERSON", "BUDGET", "INTERRUPTED", "OTHER",
		"MEDIAN", "P95", "IN", "OUT", "CACHE", "NO USAGE", "COST"}}
	if len(groups) > 1 {
		total.Day, total.Agent = "total", ""
		groups = append(groups, total)
	}
	for _, g := range groups {
		row := []string{g.Day, g.Agent, strconv.Itoa(g.Runs)}
		for _, c := range report.Categories {
			row = append(row, ended(g.Ended[c]))
		}
		row = append(row, took(g.Duration.MedianMS, g.Duration.Runs), took(g.Duration.P95MS, g.Duration.Runs))
		u := g.Usage
		if u.RunsReported > 0 {
			row = append(row, words.Compact(u.InputTokens), words.Compact(u.OutputTokens), words.Compact(u.CacheReadTokens+u.CacheWriteTokens))
		} else {
			row = append(row, "-", "-", "-")
		}
		row = append(row, count(u.RunsNotReported), "-")
		if u.CostUSD != nil {
			row[len(row)-1] = words.Dollars(*u.CostUSD)
		}
		for i, cell := range row {
			// A log holds what the agent and its user wrote.
			row[i] = words.Display(cell)
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for n, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			line.WriteString(cell)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2))
			}
		}
		text := strings.TrimRight(line.String(), " ")
		if n == 0 && bold {
			text = "\x1b[1m" + text + "\x1b[0m"
		}
		fmt.Fprintln(w, text)
	}
}

// ended is a category's cell: its runs, and their kinds.
func ended(e *report.Ended) string {
	if e == nil {
		return "-"
	}
	var kinds []string
	for _, k := range slices.Sorted(maps.Keys(e.Kinds)) {
		if n := e.Kinds[k]; n > 1 {
			k += fmt.Sprintf(" ×%d", n)
		}
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return strconv.Itoa(e.Runs)
	}
	return fmt.Sprintf("%d (%s)", e.Runs, strings.Join(kinds, ", "))
}

func took(ms int64, runs int) string {
	if runs == 0 {
		return "-"
	}
	return words.Duration(time.Duration(ms) * time.Millisecond)
}

func count(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// plural is word for n of them: its plural form given, or with an s.
func plural(n int, word string, pluralForm ...string) string {
	switch {
	case n == 1:
		return word
	case len(pluralForm) > 0:
		return pluralForm[0]
	}
	return word + "s"
}
