// Package ptyproxy runs one watched attempt of an agent: it starts the
// agent under a raw pseudo-terminal in a new session, forwards its output
// byte for byte, feeds the watchdog, acts on its verdicts, kills the whole
// process tree (descendants that left the group included), stops and
// continues that tree with the wrapper's job (Ctrl-Z, fg), and reports
// what happened to the session log.
//
// # Linux and macOS
//
// On Linux the package uses /proc for the process tree and activity,
// PR_SET_CHILD_SUBREAPER for escaped descendants, pidfds so that a
// recycled pid is never signalled, EIO as the PTY's end of stream, and
// reads the master (nonblocking, outside Go's poller) waiting in an epoll
// set of its own.
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

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// Options describe one attempt.
type Options struct {
	Path string   // the agent binary, an absolute path
	Args []string // its arguments, without argv[0]
	Env  []string // its environment
	Dir  string   // its working directory, "" for the wrapper's

	IO

	// Parse reads one output line. Nil watches bytes only: no events, no
	// tool calls, no terminal event (for output formats that are not JSON).
	Parse func(stream.Line) stream.Event
	// StderrError recognises an agent error in a line of its stderr (the
	// profile's patterns); nil for none. Errors on stdout come with the
	// events Parse returns.
	StderrError func(line []byte) *stream.AgentError
	// Asks recognises a question only a person can answer in the agent's
	// last words that are not its stream (the profile's table); nil for
	// none. Such a question stops the attempt only while the agent waits
	// for input (see watchdog.ObserveInput).
	Asks func(text []byte) *stream.Question
	// Runtime is the command name of the agent's runtime process, as its
	// profile names it (stream.Profile.Runtime): its work and its
	// connections are the agent's own. "" for an agent that is one
	// process.
	Runtime string

	// KeepOrphans leaves alone what the agent leaves running after it
	// exits by itself (servers started on purpose); a hang or a signal
	// still stops everything.
	KeepOrphans bool

	Thresholds watchdog.Thresholds
	// Spent is what the run's earlier attempts reported spending: the
	// budgets count it too.
	Spent     stream.Usage
	Tick      time.Duration // longest wait between two checks
	KillGrace time.Duration // from SIGTERM to SIGKILL
	// Clock is where the attempt gets the time; nil for the system's.
	Clock Clock

	Reload <-chan Reload // new thresholds from the config file

	Log     *sessionlog.Recorder // the session log; nil for none
	Console *slog.Logger         // the wrapper's own messages; nil for none
	// OnSession is called once, when the stream names the session id.
	OnSession func(id string)
	// OnStatus is called with the watchdog's view after each check and
	// batch of output, for a live status line; nil for none.
	OnStatus func(Status)
}

// IO is where an attempt's input comes from and its output goes, and the
// terminal it runs in: what the caller of a run gives every attempt alike.
type IO struct {
	// Stdin is copied to the agent's stdin, which is closed at its end;
	// nil closes the agent's stdin at once.
	Stdin  io.Reader
	Stdout io.Writer // the agent's output, byte for byte
	Stderr io.Writer // the agent's stderr, as it arrives

	WinSize WinSize          // the PTY's size; zero for DefaultWinSize
	Resize  <-chan WinSize   // later sizes (the wrapper's terminal resized)
	Signals <-chan os.Signal // signals to pass on: the attempt is stopped
	// Stops are the job-control stops to follow (JobStops): the agent's
	// tree stops with the wrapper and goes on with it.
	Stops <-chan os.Signal
	// Terminal is told when the wrapper stops with its job and goes on;
	// nil for none.
	Terminal Terminal
}

// Reload carries a config change to a running attempt.
type Reload struct {
	Thresholds watchdog.Thresholds
	Tick       time.Duration
	KillGrace  time.Duration
	// Record is the config_reloaded record to write, nil when the
	// reload changed nothing here (a call's own timeouts are no news).
	// Err says why the file was not applied instead.
	Record *sessionlog.ConfigReloaded
	Err    error
	// Warnings say what the new values cannot do for this run, for the
	// log and the console.
	Warnings []string
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
	Downstream               // the wrapper's stdout failed (see StdoutErr)
	Cancelled                // the context was cancelled
	// AwaitingPerson: the agent asked what only a person can answer and
	// waited for the answer; the tree was stopped.
	AwaitingPerson
	// OverBudget: the agent reported more than max_tokens or max_cost_usd
	// allows; the tree was stopped.
	OverBudget
)

func (c Cause) String() string {
	return [...]string{sessionlog.CauseExited, sessionlog.CauseHung, sessionlog.CauseOverdue, sessionlog.CauseInterrupted,
		sessionlog.CauseDownstream, sessionlog.CauseCancelled, sessionlog.CausePerson, sessionlog.CauseBudget}[c]
}

// Outcome is what happened to one attempt.
type Outcome struct {
	Cause  Cause
	Signal os.Signal       // for Interrupted: the signal received
	Reason watchdog.Reason // for Hung, Overdue, AwaitingPerson and OverBudget
	// Question is what the agent asked that only a person can answer: why
	// it was stopped (AwaitingPerson), or its last words when it exited by
	// itself without its answer; nil if none.
	Question *stream.Question

	ExitCode   int            // the agent's exit code, -1 if signalled
	ExitSignal syscall.Signal // the signal that ended the agent, 0 if none
	// StdoutErr is why the wrapper's stdout failed (Downstream): closed by
	// its reader (EPIPE), closed at start (EBADF), full, or taking nothing.
	StdoutErr error

	SessionID string
	Done      bool // the terminal event arrived
	// Failed: the terminal event said the run failed (stream.Event.Failed).
	Failed bool
	// AgentError is the first error the agent said it cannot go on after
	// (rate limit, quota, auth, update, network), nil if none.
	AgentError *stream.AgentError
	Answer     string // the agent's final answer, as its events gave it
	// Usage is what the agent reported it spent in the attempt, nil if it
	// reported nothing.
	Usage *stream.Usage
	// MidLine is set when the agent's output ended inside a line.
	MidLine   bool
	Started   time.Time
	Ended     time.Time
	Lines     int // lines of output, JSON or not
	Events    int // of which events of the agent's stream
	ToolCalls int
	// Leftovers are the command lines of the processes the agent left
	// running when it exited by itself: stopped, unless KeptLeftovers.
	Leftovers     []string
	KeptLeftovers bool
	// LongestSilence is the longest gap between two outputs, and
	// SilenceOpen the calls open during it.
	LongestSilence time.Duration
	SilenceOpen    []watchdog.OpenCall
}
