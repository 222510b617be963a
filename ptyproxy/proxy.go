// Package ptyproxy runs one watched attempt of an agent: it starts the
// agent under a raw pseudo-terminal in a new session, forwards its output
// byte for byte, feeds the watchdog, acts on its verdicts, kills the whole
// process tree (descendants that left the group included), and reports
// what happened to the session log.
//
// # Linux and macOS
//
// On Linux the package uses /proc for the process tree and activity,
// PR_SET_CHILD_SUBREAPER for escaped descendants, pidfds so that a
// recycled pid is never signalled, and EIO as the PTY's end of stream.
// On macOS it follows the tree through snapshots of the process table
// (sysctl kern.proc.all; each pid's start time is checked right before a
// signal), remembers descendants whose parent died, reads CPU time through
// ps and no bytes read, and reads the master (nonblocking, outside Go's
// poller) with select(2).
// Init says what a SIGKILLed wrapper leaves behind there.
package ptyproxy

import (
	"io"
	"log/slog"
	"os"
	"syscall"
	"time"

	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// Options describe one attempt.
type Options struct {
	Path string   // the agent binary, an absolute path
	Args []string // its arguments, without argv[0]
	Env  []string // its environment
	Dir  string   // its working directory, "" for the wrapper's

	// Stdin is copied to the agent's stdin, which is closed at its end;
	// nil closes the agent's stdin at once.
	Stdin  io.Reader
	Stdout io.Writer // the agent's output, byte for byte
	Stderr io.Writer // the agent's stderr, as it arrives

	// Parse reads one output line. Nil watches bytes only: no events, no
	// tool calls, no terminal event (for output formats that are not JSON).
	Parse func(stream.Line) stream.Event

	Thresholds watchdog.Thresholds
	Tick       time.Duration // longest wait between two checks
	KillGrace  time.Duration // from SIGTERM to SIGKILL

	WinSize WinSize          // the PTY's size; zero for DefaultWinSize
	Resize  <-chan WinSize   // later sizes (the wrapper's terminal resized)
	Signals <-chan os.Signal // signals to pass on: the attempt is stopped
	Reload  <-chan Reload    // new thresholds from the config file

	Log *slog.Logger // the session log's records (SPEC §6); nil for none
	// Events receives the session log's "event" records, one per line of
	// output, many per write: they are the bulk of the log and skip slog
	// (see sessionlog.AppendEvent). Nil for none.
	Events  io.Writer
	Console *slog.Logger // the wrapper's own messages; nil for none
	// OnSession is called once, when the stream names the session id.
	OnSession func(id string)
	// OnStatus is called with the watchdog's view after each check and
	// batch of output, for a live status line; nil for none.
	OnStatus func(Status)

	// ClaimAllOrphans makes every orphan that reparents to this process
	// part of the attempt. Set it when one attempt runs at a time;
	// otherwise orphans are told apart by an environment marker.
	ClaimAllOrphans bool
}

// Reload carries a config change to a running attempt.
type Reload struct {
	Thresholds watchdog.Thresholds
	Tick       time.Duration
	KillGrace  time.Duration
	// Changes and Pinned are for the config_reloaded record: what changed,
	// and what the file tried to change but a flag or the environment
	// holds. Err says why the file was not applied instead.
	Changes []watchdog.Change
	Pinned  []string
	Err     error
}

// SendReload hands r to a running attempt through ch, a channel with one
// slot, replacing a reload not taken yet: only the newest matters, and the
// sender never blocks, not even between attempts when nobody reads.
func SendReload(ch chan Reload, r Reload) {
	for {
		select {
		case ch <- r:
			return
		default:
			select {
			case <-ch:
			default:
			}
		}
	}
}

// Status is a snapshot for a live status line.
type Status struct {
	Now     time.Time
	Started time.Time
	Verdict watchdog.Verdict
	Reason  watchdog.Reason
	Phase   Phase
}

// Phase is where an attempt is in its life.
type Phase int

const (
	Running  Phase = iota
	Stopping       // signals sent, waiting for the tree to go
	Exiting        // the agent exited; draining and cleaning up
)

// Cause says why an attempt ended.
type Cause int

const (
	Exited      Cause = iota // the agent exited by itself
	Hung                     // the watchdog declared a hang and the tree was killed
	Overdue                  // the agent answered but did not exit; killed, a success
	Interrupted              // the wrapper got a signal and passed it on
	Downstream               // the wrapper's stdout went away
	Cancelled                // the context was cancelled
)

func (c Cause) String() string {
	return [...]string{"exited", "hung", "overdue", "interrupted", "downstream_closed", "cancelled"}[c]
}

// Outcome is what happened to one attempt.
type Outcome struct {
	Cause  Cause
	Signal os.Signal       // for Interrupted: the signal received
	Reason watchdog.Reason // for Hung and Overdue

	ExitCode   int            // the agent's exit code, -1 if signalled
	ExitSignal syscall.Signal // the signal that ended the agent, 0 if none

	SessionID string
	Done      bool // the terminal event arrived
	// MidLine is set when the agent's output ended inside a line.
	MidLine   bool
	Started   time.Time
	Ended     time.Time
	Lines     int
	ToolCalls int
	// LongestSilence is the longest gap between two outputs, and
	// SilenceOpen the calls open during it.
	LongestSilence time.Duration
	SilenceOpen    []watchdog.OpenCall
}

// Status is the exit status the wrapper reports for the outcome (SPEC §4):
// the agent's own after its result; 124 for a hang; 0 for an agent that
// answered but had to be stopped; 1 for an agent that exited 0 without a
// result; 128+n for a signal n, the agent's or the wrapper's; 141 when the
// wrapper's stdout went away.
func (o Outcome) Status() int {
	agent := o.ExitCode
	if o.ExitSignal != 0 {
		agent = 128 + int(o.ExitSignal)
	}
	switch o.Cause {
	case Hung:
		return 124
	case Overdue:
		return 0
	case Interrupted:
		if s, ok := o.Signal.(syscall.Signal); ok {
			return 128 + int(s)
		}
		return 128 + int(syscall.SIGTERM)
	case Downstream:
		return 128 + int(syscall.SIGPIPE)
	}
	if !o.Done && agent == 0 {
		return 1
	}
	return agent
}
