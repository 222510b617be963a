package inspect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/words"
)

// maxCandidates bounds the runs an ambiguous id lists.
const maxCandidates = 10

// pick finds the log named by arg: a file that exists, else the last
// attempt's log of the run whose session (any attempt's) or run id starts
// with arg, among the runs of the log dir. It returns the log, or the
// status of the error it reported.
func pick(env *cli.Env, o *options, arg string) (string, int) {
	_, err := os.Stat(arg)
	if !errors.Is(err, fs.ErrNotExist) || arg == "" || strings.ContainsRune(arg, '/') {
		// A file, or what reads as a path: inspect reads it, and says why
		// not when it cannot.
		return arg, 0
	}
	dir, derr := o.Dir(env)
	if derr != nil {
		return "", env.Fail(job.ExitWrapper, "%v", derr)
	}
	var found []sessionlog.Session
	for _, s := range sessionlog.Sessions(dir, sessionlog.Query{Limit: 1 << 30}, nil) {
		if names(s, arg) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return "", env.Fail(1, "cannot read %s: no such file, and no session in %s has an id that starts so (`cursor-wrap sessions` lists them)", arg, cli.Tilde(dir))
	case 1:
		return found[0].LogPath, 0
	}
	var b strings.Builder
	fmt.Fprintf(&b, "inspect: %s starts the id of %d sessions; give more of it, or a log's path:", arg, len(found))
	for _, s := range found[:min(len(found), maxCandidates)] {
		start := s.Start
		if t, err := time.Parse(time.RFC3339, s.Start); err == nil {
			start = t.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(&b, "\n  %s  %s  %s  %s", words.Display(s.ID), start, words.Display(s.Told()), words.Display(s.Prompt))
	}
	if len(found) > maxCandidates {
		fmt.Fprintf(&b, "\n  … and %d more", len(found)-maxCandidates)
	}
	return "", env.Fail(job.ExitUsage, "%s", b.String())
}

// names reports whether id starts the id of the run or of a session of
// one of its attempts.
func names(s sessionlog.Session, id string) bool {
	if strings.HasPrefix(s.Run, id) {
		return true
	}
	for _, a := range s.Attempts {
		if strings.HasPrefix(a.ID, id) {
			return true
		}
	}
	return false
}
