package sessionlog

import (
	"cmp"
	"strconv"
)

// The causes an exit record names: why the attempt ended. ptyproxy's
// causes are written by these names, and every reader of a log compares
// with them.
const (
	CauseExited      = "exited"            // the agent exited by itself
	CauseHung        = "hung"              // the watchdog declared a hang; the tree was killed
	CauseOverdue     = "overdue"           // the agent answered but did not exit; killed, a success
	CauseInterrupted = "interrupted"       // the wrapper got a signal and passed it on
	CauseDownstream  = "downstream_closed" // the wrapper's stdout failed
	CauseCancelled   = "cancelled"         // the caller cancelled the run
	CausePerson      = "waiting_on_person" // the agent asked what only a person can answer
	CauseBudget      = "over_budget"       // the agent passed a budget
)

// The exit statuses that say, whatever the cause, that a person must act
// (the agent asked what only a person can answer) and that the agent
// passed a budget. job's exit-status policy names them; a log written
// before the exit record said its kind says these so.
const (
	StatusPerson = 85
	StatusBudget = 86
)

// KindQuestion is the kind of an attempt whose agent exited by itself
// after asking what only a person can answer, which the wrapper reported
// as such (its exit status says a person must act).
const KindQuestion = "question"

// An End is how an attempt ended, and with the last attempt how its run
// did: computed once, when the attempt ends (or the wait before the next
// one is cut short), carried by the run's result and written in the exit
// record. Every reader of the log classifies the run from it (Class).
type End struct {
	Cause  string `json:"cause"`
	Status int    `json:"status"` // what the wrapper exits with for it
	// Kind says more within the cause: a hang's rule, the budget passed,
	// the agent's error (a failed exit it explained), KindQuestion; ""
	// when there is nothing more to say, and in logs written before the
	// exit record said it.
	Kind string `json:"kind,omitempty"`
	// Signal is the signal that ended it, by its name (SIGINT): the one
	// the wrapper got and passed on, or the one that killed the agent.
	Signal  string `json:"signal,omitempty"`
	Attempt int    `json:"attempt,omitempty"` // the attempt's number in its run, from 1
	Run     string `json:"run,omitempty"`     // the run's id, as its command records have it
}

// The categories a run ends in, as a report counts them and the session
// list words them: the rows of the exit-status table.
const (
	Answered   = "answered"
	Hung       = "hung"
	AgentError = "agent_error"
	Person     = "waiting_on_person"
	OverBudget = "over_budget"
	Stopped    = "interrupted"
	Other      = "other"
)

// Categories are the categories, in the order a report shows them.
var Categories = []string{Answered, Hung, AgentError, Person, OverBudget, Stopped, Other}

// An Ending is what a log says of how its attempt ended: its exit record,
// and, for a log written before the exit record said its kind, the kinds
// of its hang and agent error records.
type Ending struct {
	Exit        *Exit
	StartFailed bool
	// HangKind is the kind of its hang record's reason, and Budget the
	// budget it names when the run passed one; AgentError the kind of its
	// last agent error record.
	HangKind, Budget, AgentError string
}

// Ending is how the summary's attempt ended.
func (s Summary) Ending() Ending {
	e := Ending{Exit: s.Exit, StartFailed: s.StartFailed != nil}
	if s.Hang != nil {
		e.HangKind, e.Budget = s.Hang.Reason.Kind, s.Hang.Reason.Budget
	}
	if s.AgentError != nil {
		e.AgentError = s.AgentError.Kind
	}
	return e
}

// Class is how the run whose last attempt ended so was ended: its
// category, and within it the kind (a hang's rule, the budget passed, an
// agent error's kind, what "other" was). It is the one classifier: the
// session list, the report, the MCP server and inspect --last-hang read
// runs through it.
func (e Ending) Class() (category, kind string) {
	x := e.Exit
	// An exit record without its attempt's number was written before it
	// said its kind: its status says a person or a budget.
	legacy := x != nil && x.Attempt == 0
	switch {
	case x == nil && e.StartFailed:
		return Other, "start failed"
	case x == nil:
		// No exit record: the wrapper was killed, or the machine stopped.
		return Other, "unfinished"
	case x.Cause == CausePerson || x.Kind == KindQuestion || legacy && x.Status == StatusPerson:
		return Person, ""
	case x.Cause == CauseBudget || legacy && x.Status == StatusBudget:
		return OverBudget, cmp.Or(x.Kind, e.Budget)
	case x.Cause == CauseHung:
		return Hung, cmp.Or(x.Kind, e.HangKind, "unknown")
	case x.Cause == CauseInterrupted || x.Cause == CauseCancelled:
		return Stopped, ""
	case x.Cause == CauseDownstream:
		return Other, "stdout closed"
	case x.Status == 0:
		return Answered, ""
	case x.Kind != "" || e.AgentError != "":
		return AgentError, cmp.Or(x.Kind, e.AgentError)
	}
	return Other, "status " + strconv.Itoa(x.Status)
}
