package sessionlog

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// The session log's records, one JSON object a line. Every record starts
// with the same three fields (time, level, msg), as slog's JSON handler
// writes them; the rest is the record's type below. Each record is written
// by one place in the code, through Recorder.Write, and read back by
// Decode: the types are the log's one schema.
//
// A new kind of record is a struct type below, with record embedded, and
// its row in kinds, at the end of this file: its name, its level, and what
// inspect says of it. Nothing else names it.

// A Record is one of the record types below.
type Record interface{ isRecord() }

// record, embedded, makes a struct a Record.
type record struct{}

func (record) isRecord() {}

// Header is what every record starts with.
type Header struct {
	Time  time.Time `json:"time"`
	Level string    `json:"level"`
	Msg   string    `json:"msg"`
}

// Command is how the agent was started: the first record of an attempt.
type Command struct {
	record
	Attempt int `json:"attempt"`
	// Run is the same in every attempt of a run, and only there: each
	// attempt has a log of its own.
	Run   string `json:"run,omitempty"`
	Agent string `json:"agent"`
	// Demo says the agent was cursor-wrap's demo agent, not the real one.
	Demo  bool     `json:"demo,omitempty"`
	Path  string   `json:"path"`
	Argv  []string `json:"argv"` // secrets masked
	Env   []string `json:"env"`  // secrets masked
	Watch string   `json:"watch"`
	// Via names a caller other than the wrapper command ("mcp"); such a
	// caller may fix the call's timeouts.
	Via         string  `json:"via,omitempty"`
	IdleTimeout string  `json:"idle_timeout,omitempty"`
	HardTimeout string  `json:"hard_timeout,omitempty"`
	Clamped     []Clamp `json:"clamped,omitempty"`
	// Trace is the attempt's place in the run's trace, when traces are
	// exported: absent otherwise.
	Trace *Trace `json:"trace,omitempty"`
}

// Trace places an attempt in its run's trace (W3C trace context, hex).
type Trace struct {
	// TraceParent is what the agent receives in $TRACEPARENT: the trace
	// and the attempt's span, under which the agent's own spans go.
	TraceParent string `json:"traceparent"`
	RunSpan     string `json:"run_span"` // the run's span, the attempts' parent
	// Parent is the caller's span ($TRACEPARENT, an MCP call's
	// _meta.traceparent), the run's parent; "" for a run of its own.
	Parent string `json:"parent_span,omitempty"`
}

// AgentName is the agent as people are told it: its profile's name, with
// " (demo)" after it for the demo agent, so that its runs are never
// listed, grouped or counted as the real agent's.
func (c *Command) AgentName() string {
	if c.Demo {
		return c.Agent + " (demo)"
	}
	return c.Agent
}

// Clamp is a caller's value held to a bound of the config: a call's
// timeout past [mcp]'s limit, say.
type Clamp struct {
	Name      string `json:"name"`
	Requested string `json:"requested"`
	Applied   string `json:"applied"`
	Bound     string `json:"bound"` // the config key that applied
	// FromConfig: the value was the config's default, not the caller's.
	FromConfig bool `json:"from_config,omitempty"`
}

// Restart says why an attempt after the first one runs.
type Restart struct {
	record
	Attempt int    `json:"attempt"`
	Why     string `json:"why"`
}

// Input is a decision of the wrapper's that changes what the agent
// receives, beside what the user gave it: the arguments and environment
// it adds (or takes out), the prompt a restart gives in place of the
// user's, and the stdin it closes early, replays or does not give. Change
// says which (Changes lists them); Added and Removed are arguments, or
// the names of variables; Bytes counts the stdin concerned.
type Input struct {
	record
	Change  string   `json:"change"`
	Message string   `json:"message"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Bytes   int64    `json:"bytes,omitempty"`
}

// The changes an Input record names.
const (
	InputArguments   = "arguments"          // added to (or taken out of) the user's
	InputEnvironment = "environment"        // variables added (or taken out)
	InputPrompt      = "prompt"             // a restart's prompt in place of the user's
	StdinClosed      = "stdin_closed"       // it gave nothing within stdin_wait
	StdinLate        = "stdin_late"         // bytes it held after it was closed, never given
	StdinReplayed    = "stdin_replayed"     // a rerun gets the run's stdin again
	StdinNotReplayed = "stdin_not_replayed" // a rerun could not have it: none ran
	StdinNotGiven    = "stdin_not_given"    // a resumed session gets none: it read it before
)

// Start is the agent started.
type Start struct {
	record
	Pid           int    `json:"pid"`
	Dir           string `json:"dir"`
	TickMS        int64  `json:"tick_ms"`
	ActivityProbe bool   `json:"activity_probe"`
}

// StartFailed is an agent that could not be started, and the status the
// wrapper exits with for it (126, 127, 125; absent in older logs).
type StartFailed struct {
	record
	Error  string `json:"error"`
	Status int    `json:"status,omitempty"`
}

// Stderr is one line the agent wrote to its stderr.
type Stderr struct {
	record
	Line string `json:"line"`
}

// Warning is something the wrapper tolerated but a reader should know.
type Warning struct {
	record
	Message string           `json:"message"`
	CallID  string           `json:"call_id,omitempty"`
	InMS    int64            `json:"in_ms,omitempty"` // a hang due in this long
	Reason  *watchdog.Reason `json:"reason,omitempty"`
}

// VerdictChange is a change of the watchdog's verdict.
type VerdictChange struct {
	record
	From   string          `json:"from"`
	To     string          `json:"to"`
	Reason watchdog.Reason `json:"reason"`
}

// HangDetected is the watchdog's hang verdict, acted on.
type HangDetected struct {
	record
	Reason watchdog.Reason `json:"reason"`
}

// ExitOverdue is an agent that answered but did not exit in time.
type ExitOverdue struct {
	record
	Reason watchdog.Reason `json:"reason"`
}

// Kill is one signal sent: to the group (a negative pid) and to
// processes that left it.
type Kill struct {
	record
	Signal string `json:"signal"`
	Pids   []int  `json:"pids"`
}

// AgentExited is the agent's own exit.
type AgentExited struct {
	record
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
}

// Leftovers is an agent that exited leaving processes behind.
type Leftovers struct {
	record
	Message   string   `json:"message"`
	Processes []string `json:"processes,omitempty"` // their command lines, shortened
}

// DownstreamClosed is the wrapper's stdout gone.
type DownstreamClosed struct {
	record
	Error string `json:"error"`
}

// StderrDropped is the agent's stderr, and the wrapper's own last lines,
// that the wrapper's stderr did not take: it took nothing for ptyproxy's
// Stall after the agent exited (or, written beside the run, after the
// run), and was given up on. The exit status stands.
type StderrDropped struct {
	record
	Bytes int64  `json:"bytes"`
	Error string `json:"error"`
}

// ConfigReloaded is a config change applied to the running attempt.
type ConfigReloaded struct {
	record
	Changed []Change `json:"changed"`
	// Pinned are keys the file tried to change but a flag, the
	// environment or the caller holds.
	Pinned []string `json:"pinned"`
}

// Change is a setting's value changed by a reload, as text.
type Change struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// ConfigError is a changed config file that was not applied.
type ConfigError struct {
	record
	Error string `json:"error"`
}

// OnHang is the on_hang command run after a hang. Leftovers counts the
// processes it left running when it exited, which were stopped.
type OnHang struct {
	record
	Command   string `json:"command"`
	Output    string `json:"output"`
	Leftovers int    `json:"leftovers_stopped,omitempty"`
}

// OnHangFailed is an on_hang command that failed.
type OnHangFailed struct {
	record
	Command   string `json:"command"`
	Error     string `json:"error"`
	Output    string `json:"output"`
	Leftovers int    `json:"leftovers_stopped,omitempty"`
}

// NotifySent is a notification delivered: a webhook answered 2xx (or had
// the request when the run ended, Status 0), a desktop notifier exited 0.
// It may come after the exit record: delivery runs beside the run.
type NotifySent struct {
	record
	Event  string `json:"event"`
	Target string `json:"target"` // a URL without its path, which holds its secret
	Status int    `json:"status,omitempty"`
	Tries  int    `json:"tries"`
	MS     int64  `json:"ms"`
}

// NotifyFailed is a notification that could not be delivered.
type NotifyFailed struct {
	record
	Event  string `json:"event"`
	Target string `json:"target"`
	Error  string `json:"error"`
	Tries  int    `json:"tries"`
}

// TelemetryFailed is traces or metrics of the run that the collector did
// not take: written beside the run, after its end, like a notification's.
type TelemetryFailed struct {
	record
	Signal string `json:"signal"` // traces, metrics, or both
	Error  string `json:"error"`
}

// Exit is how the attempt ended: its last record.
type Exit struct {
	record
	End
	DurationMS       int64 `json:"duration_ms"`
	Lines            int   `json:"lines"`
	ToolCalls        int   `json:"tool_calls"`
	LongestSilenceMS int64 `json:"longest_silence_ms"`
	// Usage is the attempt's total of what the agent reported it spent,
	// nil when it reported nothing (which is not 0).
	Usage *UsageRecord `json:"usage,omitempty"`
}

// UsageRecord is the running total of what the agent reported it spent
// in the attempt, written each time it changes; the exit record holds the
// last. CostUSD is nil when the agent states no cost: it is never guessed.
type UsageRecord struct {
	record
	InputTokens      int64    `json:"input_tokens"`
	OutputTokens     int64    `json:"output_tokens"`
	CacheReadTokens  int64    `json:"cache_read_tokens"`
	CacheWriteTokens int64    `json:"cache_write_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
}

// UsageOf is the record of a running total.
func UsageOf(u stream.Usage) UsageRecord {
	r := UsageRecord{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite}
	if u.HasCost {
		r.CostUSD = &u.CostUSD
	}
	return r
}

// Usage is the running total the record holds.
func (r *UsageRecord) Usage() stream.Usage {
	u := stream.Usage{Input: r.InputTokens, Output: r.OutputTokens, CacheRead: r.CacheReadTokens, CacheWrite: r.CacheWriteTokens}
	if r.CostUSD != nil {
		u.CostUSD, u.HasCost = *r.CostUSD, true
	}
	return u
}

// AgentErrorRecord is the agent saying it cannot go on: a rate limit, a
// quota, no login, a version too old, no network. Its message says what to
// do; the agent's own words are in the event or stderr record before it.
type AgentErrorRecord struct {
	record
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	Source       string `json:"source"` // stdout or stderr
	Restart      bool   `json:"restart"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// LogDropped counts records the log could not keep (or, in the records
// handed to the exporter, that it could not take in time).
type LogDropped struct {
	record
	Records int `json:"records"`
}

// EventLine is an "event" record as Decode reads it back; AppendEvent
// writes it (see Event).
type EventLine struct {
	record
	RecvTS    int64           `json:"recv_ts"`
	AgentTS   int64           `json:"agent_ts,omitempty"`
	Type      string          `json:"type,omitempty"`
	Subtype   string          `json:"subtype,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Raw       json.RawMessage `json:"raw,omitempty"`
	RawBase64 []byte          `json:"raw_base64,omitempty"`
	// ParseError, Truncated, Len and Partial: as in Event.
	ParseError bool  `json:"parse_error,omitempty"`
	Truncated  bool  `json:"truncated,omitempty"`
	Len        int64 `json:"len,omitempty"`
	Partial    bool  `json:"partial,omitempty"`
}

// Text returns the line as the agent wrote it (its kept prefix when
// Truncated).
func (e *EventLine) Text() []byte {
	if e.RawBase64 != nil {
		return e.RawBase64
	}
	if len(e.Raw) > 0 && e.Raw[0] == '"' {
		var s string
		if json.Unmarshal(e.Raw, &s) == nil {
			return []byte(s)
		}
	}
	return e.Raw
}

// Names of the records that code beyond their row looks for.
const (
	msgEvent        = "event"
	MsgStartFailed  = "start_failed"
	MsgHangDetected = "hang_detected"
	MsgExitOverdue  = "exit_overdue"
	MsgKill         = "kill"
	MsgNotifySent   = "notify_sent"
	MsgUsage        = "usage"
	// MsgTelemetryFailed is what doctor looks for.
	MsgTelemetryFailed = "telemetry_failed"
)

// kinds is the log's schema: every record type with its msg, its level,
// and, for a note on the run (a warning, a config change, a notification),
// the detail inspect shows. The records without a note make the run's
// timeline itself (package timeline) or are not shown.
var kinds = []kind{
	of[Command]("command", slog.LevelInfo, nil),
	of[Restart]("restart", slog.LevelWarn, func(r *Restart) string { return r.Why }),
	of[Input]("input", slog.LevelInfo, func(r *Input) string { return r.Message }),
	of[Start]("start", slog.LevelInfo, nil),
	of[StartFailed](MsgStartFailed, slog.LevelError, func(r *StartFailed) string { return r.Error }),
	of[EventLine](msgEvent, slog.LevelDebug, nil),
	of[Stderr]("stderr", slog.LevelInfo, nil),
	of[Warning]("warning", slog.LevelWarn, func(r *Warning) string { return r.Message }),
	of[VerdictChange]("verdict", slog.LevelInfo, nil),
	of[Evidence]("evidence", slog.LevelInfo, (*Evidence).words),
	of[HangDetected](MsgHangDetected, slog.LevelError, nil),
	of[ExitOverdue](MsgExitOverdue, slog.LevelWarn, nil),
	of[Kill](MsgKill, slog.LevelInfo, nil),
	of[AgentExited]("agent_exited", slog.LevelInfo, nil),
	of[Leftovers]("leftovers", slog.LevelInfo, func(r *Leftovers) string { return r.Message }),
	of[DownstreamClosed]("downstream_closed", slog.LevelWarn, func(r *DownstreamClosed) string { return r.Error }),
	besideRun(of[StderrDropped]("stderr_dropped", slog.LevelWarn, func(r *StderrDropped) string { return r.Error })),
	of[ConfigReloaded]("config_reloaded", slog.LevelInfo, reloadWords),
	of[ConfigError]("config_error", slog.LevelWarn, func(r *ConfigError) string { return r.Error }),
	of[OnHang]("on_hang", slog.LevelInfo, func(r *OnHang) string { return r.Command }),
	of[OnHangFailed]("on_hang_failed", slog.LevelWarn, func(r *OnHangFailed) string { return r.Error }),
	besideRun(of[NotifySent](MsgNotifySent, slog.LevelInfo, func(r *NotifySent) string {
		return fmt.Sprintf("%s to %s", r.Event, r.Target)
	})),
	besideRun(of[NotifyFailed]("notify_failed", slog.LevelWarn, func(r *NotifyFailed) string {
		return fmt.Sprintf("%s to %s: %s", r.Event, r.Target, r.Error)
	})),
	besideRun(of[TelemetryFailed](MsgTelemetryFailed, slog.LevelWarn, func(r *TelemetryFailed) string {
		return r.Signal + " not exported: " + r.Error
	})),
	of[UsageRecord](MsgUsage, slog.LevelInfo, nil),
	of[Exit]("exit", slog.LevelInfo, nil),
	of[LogDropped]("log_dropped", slog.LevelWarn, func(r *LogDropped) string { return fmt.Sprintf("%d records", r.Records) }),
	of[AgentErrorRecord]("agent_error", slog.LevelError, func(r *AgentErrorRecord) string { return r.Kind + ": " + r.Message }),
}

func reloadWords(r *ConfigReloaded) string {
	var words []string
	for _, c := range r.Changed {
		words = append(words, c.Key+" "+c.Old+" → "+c.New)
	}
	return strings.Join(words, ", ")
}
