package watchdog

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"cursor-wrap/words"
)

// A Reason explains a verdict: everything the hang record needs.
type Reason struct {
	Kind          string        // KindIdle, KindTool, KindDeadline, KindExit, KindPerson or KindBudget
	Silence       time.Duration // since the last output
	Elapsed       time.Duration // since the attempt started
	Threshold     time.Duration // the limit of the rule in Kind, if one
	DueIn         time.Duration // until the rule fires; ≤ 0 once it has
	LastEventType string        // "type/subtype" of the last line, "text" if not JSON
	SessionID     string
	OpenCount     int        // tool calls open
	OpenCalls     []OpenCall // the longest running first, at most MaxReasonCalls
	Evidence      Evidence
	// StdinOpen is set by the orchestrator when the agent's stdin was still
	// open: the caller's stdin had not ended, and the agent may have been
	// waiting on it.
	StdinOpen bool
	// Question quotes what the agent asked a person (KindPerson), and Fix
	// says what lets a run go on without one.
	Question, Fix string
	// WaitingOn is what the agent was seen waiting to read when it was
	// stopped for a question (KindPerson): "terminal" or "stdin"; "" where
	// the kernel could not tell and the words on its terminal decided.
	WaitingOn string
	// Budget is the key of the budget a KindBudget reason is about
	// (BudgetTokens or BudgetCost), Limit its value and Total what the
	// agent had reported when it passed it: tokens, or US dollars.
	Budget       string
	Limit, Total float64
	// SilenceDue is, for KindTool, how long before the verdict the
	// silence part of the rule fell due (the idle timeout's silence, with
	// what evidence excused): the rule needs it and every open call past
	// its deadline, and the later of the two decides. Threshold is then
	// the idle timeout.
	SilenceDue time.Duration
}

// An OpenCall is a tool call that was running at the check.
type OpenCall struct {
	ID      string
	Kind    string
	Command string
	Elapsed time.Duration
	Timeout time.Duration // declared by the agent, 0 if none
	Budget  time.Duration // the deadline the watchdog applied
}

// reasonJSON is a Reason as the session log's hang_detected record writes
// it: durations in milliseconds.
type reasonJSON struct {
	Kind          string         `json:"kind"`
	IdleSilenceMS int64          `json:"idle_silence_ms"`
	ElapsedMS     int64          `json:"elapsed_ms"`
	ThresholdMS   int64          `json:"threshold_ms,omitempty"`
	OpenCallCount int            `json:"open_call_count"`
	LastEventType string         `json:"last_event_type"`
	SessionID     string         `json:"session_id,omitempty"`
	OpenCalls     []openCallJSON `json:"open_calls"`
	Evidence      *evidenceJSON  `json:"activity,omitempty"`
	StdinOpen     bool           `json:"stdin_open,omitempty"`
	Question      string         `json:"question,omitempty"`
	Fix           string         `json:"fix,omitempty"`
	WaitingOn     string         `json:"waiting_on,omitempty"`
	Budget        string         `json:"budget,omitempty"`
	Limit         float64        `json:"budget_limit,omitempty"`
	Total         float64        `json:"budget_total,omitempty"`
	SilenceDueMS  int64          `json:"silence_due_ms_ago,omitempty"`
}

type openCallJSON struct {
	CallID    string `json:"call_id"`
	Kind      string `json:"kind"`
	Command   string `json:"command"`
	ElapsedMS int64  `json:"elapsed_ms"`
	TimeoutMS int64  `json:"timeout_ms"`
	BudgetMS  int64  `json:"budget_ms"`
}

type evidenceJSON struct {
	Windows       int     `json:"windows"`
	ActiveWindows int     `json:"active_windows"`
	CPUPercent    float64 `json:"last_cpu_percent"`
	ReadPerSec    float64 `json:"last_read_bytes_per_sec"`
	Tool          bool    `json:"tool_running,omitempty"`
	ExtendedMS    int64   `json:"extended_ms"`
	// The process whose work earned the last active window (absent for
	// the agent's own), and the open call it started after.
	Worked  string `json:"worked,omitempty"`
	Pid     int    `json:"pid,omitempty"`
	Process string `json:"process,omitempty"`
	CallID  string `json:"call_id,omitempty"`
	// The connection that excused the silence, why, how long before the
	// check data arrived on it, the content bytes it received, the gap
	// between its arrivals, and how long the model had been waited on.
	Conn        string `json:"connection,omitempty"`
	Earned      string `json:"connection_earned,omitempty"`
	ConnQuietMS int64  `json:"connection_received_ms_ago,omitempty"`
	Content     int64  `json:"content_bytes,omitempty"`
	PeriodMS    int64  `json:"keepalive_period_ms,omitempty"`
	ModelWaitMS int64  `json:"model_wait_ms,omitempty"`
}

// MarshalJSON writes the reason as the hang_detected record holds it.
func (r Reason) MarshalJSON() ([]byte, error) {
	out := reasonJSON{
		Kind: r.Kind, IdleSilenceMS: r.Silence.Milliseconds(), ElapsedMS: r.Elapsed.Milliseconds(),
		ThresholdMS: r.Threshold.Milliseconds(), OpenCallCount: r.OpenCount,
		LastEventType: r.LastEventType, SessionID: r.SessionID, OpenCalls: []openCallJSON{}, StdinOpen: r.StdinOpen,
		Question: r.Question, Fix: r.Fix, WaitingOn: r.WaitingOn, Budget: r.Budget, Limit: r.Limit, Total: r.Total,
		SilenceDueMS: r.SilenceDue.Milliseconds(),
	}
	for _, c := range r.OpenCalls {
		out.OpenCalls = append(out.OpenCalls, openCallJSON{c.ID, c.Kind, c.Command, c.Elapsed.Milliseconds(), c.Timeout.Milliseconds(), c.Budget.Milliseconds()})
	}
	if e := r.Evidence; e.Windows > 0 || e.Conn != "" {
		out.Evidence = &evidenceJSON{e.Windows, e.ActiveWindows, round1(e.CPUPercent), round1(e.ReadPerSec), e.Tool, e.Extended.Milliseconds(),
			e.Worked, e.Pid, e.Process, e.CallID, e.Conn, e.Earned, e.ConnQuiet.Milliseconds(), e.Content, e.Period.Milliseconds(), e.ModelWait.Milliseconds()}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a reason back from a session log.
func (r *Reason) UnmarshalJSON(b []byte) error {
	var in reasonJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	*r = Reason{Kind: in.Kind, Silence: ms(in.IdleSilenceMS), Elapsed: ms(in.ElapsedMS), Threshold: ms(in.ThresholdMS),
		LastEventType: in.LastEventType, SessionID: in.SessionID, OpenCount: in.OpenCallCount, StdinOpen: in.StdinOpen,
		Question: in.Question, Fix: in.Fix, WaitingOn: in.WaitingOn, Budget: in.Budget, Limit: in.Limit, Total: in.Total,
		SilenceDue: ms(in.SilenceDueMS)}
	for _, c := range in.OpenCalls {
		r.OpenCalls = append(r.OpenCalls, OpenCall{c.CallID, c.Kind, c.Command, ms(c.ElapsedMS), ms(c.TimeoutMS), ms(c.BudgetMS)})
	}
	if e := in.Evidence; e != nil {
		r.Evidence = Evidence{e.Windows, e.ActiveWindows, e.CPUPercent, e.ReadPerSec, e.Tool, ms(e.ExtendedMS), e.Worked, e.Pid, e.Process, e.CallID,
			e.Conn, e.Earned, ms(e.ConnQuietMS), e.Content, ms(e.PeriodMS), ms(e.ModelWaitMS)}
	}
	return nil
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }

// describedCalls bounds the calls a sentence names: a message is read by
// people, whatever the agent did.
const describedCalls = 3

// Describe says in a sentence why the verdict was reached.
func (r Reason) Describe() string {
	s := r.describe()
	if r.StdinOpen && r.Kind != KindPerson {
		s += "; its stdin was still open, so it may have been waiting for input that never ended (--stdin=close gives it none)"
	}
	return s
}

func (r Reason) describe() string {
	switch r.Kind {
	case KindDeadline:
		return "the attempt timed out at its hard timeout of " + words.Duration(r.Threshold) + ", a cap on its time whatever it was doing"
	case KindExit:
		return "the agent printed its result but did not exit within " + words.Duration(r.Threshold)
	case KindPerson:
		return words.Person(r.Question, r.Fix)
	case KindBudget:
		return words.Budget(r.Budget, r.Budget == BudgetCost, r.Limit, r.Total)
	case KindTool:
		return r.toolWords()
	}
	s := "no output for " + words.Duration(r.Silence) + " with no tool call running (idle timeout " + words.Duration(r.Threshold) + ")"
	e := r.Evidence
	if e.Extended > 0 {
		s += fmt.Sprintf("; evidence excused %s of it, until it ran out or max_silence was reached", words.Duration(e.Extended))
	}
	if e.Windows > 0 {
		s += fmt.Sprintf("; in the last window the agent's processes used %.1f%% CPU and read %.0f B/s", e.CPUPercent, e.ReadPerSec)
	}
	s += e.describeConn()
	return s
}

// toolWords says why the tool rule decided: every open call past its
// deadline and the idle timeout's silence, both needed, and when each
// fell due, so a short tool grace does not read as a late wrapper.
func (r Reason) toolWords() string {
	var calls []string
	var deadlines time.Duration // how long before the verdict the last deadline passed
	if len(r.OpenCalls) > 0 {
		deadlines = math.MaxInt64
		for _, c := range r.OpenCalls {
			deadlines = min(deadlines, c.Elapsed-c.Budget)
		}
	}
	for _, c := range r.OpenCalls[:min(len(r.OpenCalls), describedCalls)] {
		calls = append(calls, fmt.Sprintf("%s %q ran %s of %s", c.Kind, c.Command, words.Duration(c.Elapsed), words.Duration(c.Budget)))
	}
	if more := max(r.OpenCount, len(r.OpenCalls)) - len(calls); more > 0 {
		calls = append(calls, fmt.Sprintf("and %d more", more))
	}
	s := "no output for " + words.Duration(r.Silence) + " and every open tool call is past its deadline (" + strings.Join(calls, "; ") + ")"
	if r.Threshold <= 0 {
		return s // a reason logged before the rule's parts were
	}
	deadlinesAgo, silenceAgo := max(deadlines, 0), max(r.SilenceDue, 0)
	// The part that fell due last is the one the verdict waited for: how
	// late the loop saw it is the wrapper's latency, not the rule's.
	if deadlinesAgo <= silenceAgo {
		deadlinesAgo = 0
	} else {
		silenceAgo = 0
	}
	return s + "; the tool rule needs both: the deadlines passed " + words.Ago(deadlinesAgo) +
		", and the silence reached the idle timeout of " + words.Duration(r.Threshold) + " " + words.Ago(silenceAgo)
}

// Imminent says in a sentence when the hang a Warn verdict for r
// foretells will be declared, and what would stop it.
func (r Reason) Imminent() string {
	due := words.Duration(max(r.DueIn, 0))
	if r.Kind == KindDeadline {
		return "the hard timeout of " + words.Duration(r.Threshold) + " stops the agent in " + due
	}
	return "no output for " + words.Duration(max(r.Silence, 0)) + "; the agent will be stopped in " + due + " unless it speaks"
}

// MovedOn returns r as it would read d later with nothing new: its
// silence and times running longer, its deadline nearer.
func (r Reason) MovedOn(d time.Duration) Reason {
	r.Silence += d
	r.Elapsed += d
	r.DueIn -= d
	r.OpenCalls = slices.Clone(r.OpenCalls)
	for i := range r.OpenCalls {
		r.OpenCalls[i].Elapsed += d
	}
	return r
}
