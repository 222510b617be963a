package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/watchdog"
)

// The session log's records, one JSON object a line. Every record starts
// with the same three fields (time, level, msg), as slog's JSON handler
// writes them; the rest is the record's type below. Each record is written
// by one place in the code, through Recorder.Write, and read back by
// Decode: the types are the log's one schema.

// A Record is one of the record types below.
type Record interface {
	Msg() string
	Level() slog.Level
}

// Header is what every record starts with.
type Header struct {
	Time  time.Time `json:"time"`
	Level string    `json:"level"`
	Msg   string    `json:"msg"`
}

// Command is how the agent was started: the first record of an attempt.
type Command struct {
	Attempt int      `json:"attempt"`
	Agent   string   `json:"agent"`
	Path    string   `json:"path"`
	Argv    []string `json:"argv"` // secrets masked
	Env     []string `json:"env"`  // secrets masked
	Watch   string   `json:"watch"`
	// Via names a caller other than the wrapper command ("mcp"); such a
	// caller may fix the call's timeouts.
	Via         string  `json:"via,omitempty"`
	IdleTimeout string  `json:"idle_timeout,omitempty"`
	HardTimeout string  `json:"hard_timeout,omitempty"`
	Clamped     []Clamp `json:"clamped,omitempty"`
}

// A Clamp reports a timeout a caller asked for, moved into the bounds the
// config sets.
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
	Attempt int    `json:"attempt"`
	Why     string `json:"why"`
}

// Start is the agent started.
type Start struct {
	Pid           int    `json:"pid"`
	Dir           string `json:"dir"`
	TickMS        int64  `json:"tick_ms"`
	ActivityProbe bool   `json:"activity_probe"`
}

// StartFailed is an agent that could not be started.
type StartFailed struct {
	Error string `json:"error"`
}

// Stderr is one line the agent wrote to its stderr.
type Stderr struct {
	Line string `json:"line"`
}

// Warning is something the wrapper tolerated but a reader should know.
type Warning struct {
	Message string           `json:"message"`
	CallID  string           `json:"call_id,omitempty"`
	InMS    int64            `json:"in_ms,omitempty"` // a hang due in this long
	Reason  *watchdog.Reason `json:"reason,omitempty"`
}

// VerdictChange is a change of the watchdog's verdict.
type VerdictChange struct {
	From   string          `json:"from"`
	To     string          `json:"to"`
	Reason watchdog.Reason `json:"reason"`
}

// HangDetected is the watchdog's hang verdict, acted on.
type HangDetected struct {
	Reason watchdog.Reason `json:"reason"`
}

// ExitOverdue is an agent that answered but did not exit in time.
type ExitOverdue struct {
	Reason watchdog.Reason `json:"reason"`
}

// Kill is one signal sent: to the group (a negative pid) and to
// processes that left it.
type Kill struct {
	Signal string `json:"signal"`
	Pids   []int  `json:"pids"`
}

// AgentExited is the agent's own exit.
type AgentExited struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
}

// Leftovers is an agent that exited leaving processes behind.
type Leftovers struct {
	Message   string   `json:"message"`
	Processes []string `json:"processes,omitempty"` // their command lines, shortened
}

// DownstreamClosed is the wrapper's stdout gone.
type DownstreamClosed struct {
	Error string `json:"error"`
}

// A Change is one config key a reload changed.
type Change struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// ConfigReloaded is a config change applied to the running attempt.
type ConfigReloaded struct {
	Changed []Change `json:"changed"`
	// Pinned are keys the file tried to change but a flag, the
	// environment or the caller holds.
	Pinned []string `json:"pinned"`
}

// ConfigError is a changed config file that was not applied.
type ConfigError struct {
	Error string `json:"error"`
}

// OnHang is the on_hang command run after a hang.
type OnHang struct {
	Command string `json:"command"`
	Output  string `json:"output"`
}

// OnHangFailed is an on_hang command that failed.
type OnHangFailed struct {
	Command string `json:"command"`
	Error   string `json:"error"`
	Output  string `json:"output"`
}

// NotifySent is a notification delivered: a webhook answered 2xx (or had
// the request when the run ended, Status 0), a desktop notifier exited 0.
// It may come after the exit record: delivery runs beside the run.
type NotifySent struct {
	Event  string `json:"event"`
	Target string `json:"target"` // a URL without its path, which holds its secret
	Status int    `json:"status,omitempty"`
	Tries  int    `json:"tries"`
	MS     int64  `json:"ms"`
}

// NotifyFailed is a notification that could not be delivered.
type NotifyFailed struct {
	Event  string `json:"event"`
	Target string `json:"target"`
	Error  string `json:"error"`
	Tries  int    `json:"tries"`
}

// Exit is how the attempt ended: its last record.
type Exit struct {
	Cause            string `json:"cause"`
	Status           int    `json:"status"`
	DurationMS       int64  `json:"duration_ms"`
	Lines            int    `json:"lines"`
	ToolCalls        int    `json:"tool_calls"`
	LongestSilenceMS int64  `json:"longest_silence_ms"`
}

// AgentErrorRecord is the agent saying it cannot go on: a rate limit, a
// quota, no login, a version too old, no network. Its message says what to
// do; the agent's own words are in the event or stderr record before it.
type AgentErrorRecord struct {
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	Source       string `json:"source"` // stdout or stderr
	Restart      bool   `json:"restart"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// LogDropped counts records the log could not keep.
type LogDropped struct {
	Records int `json:"records"`
}

// EventLine is an "event" record as Decode reads it back; AppendEvent
// writes it (see Event).
type EventLine struct {
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

// Record names: the "msg" of each record type.
const (
	MsgCommand          = "command"
	MsgRestart          = "restart"
	MsgStart            = "start"
	MsgStartFailed      = "start_failed"
	MsgEvent            = "event"
	MsgStderr           = "stderr"
	MsgWarning          = "warning"
	MsgVerdict          = "verdict"
	MsgHangDetected     = "hang_detected"
	MsgExitOverdue      = "exit_overdue"
	MsgKill             = "kill"
	MsgAgentExited      = "agent_exited"
	MsgLeftovers        = "leftovers"
	MsgDownstreamClosed = "downstream_closed"
	MsgConfigReloaded   = "config_reloaded"
	MsgConfigError      = "config_error"
	MsgOnHang           = "on_hang"
	MsgOnHangFailed     = "on_hang_failed"
	MsgNotifySent       = "notify_sent"
	MsgNotifyFailed     = "notify_failed"
	MsgExit             = "exit"
	MsgLogDropped       = "log_dropped"
	MsgAgentError       = "agent_error"
)

func (Command) Msg() string          { return MsgCommand }
func (Restart) Msg() string          { return MsgRestart }
func (Start) Msg() string            { return MsgStart }
func (StartFailed) Msg() string      { return MsgStartFailed }
func (EventLine) Msg() string        { return MsgEvent }
func (Stderr) Msg() string           { return MsgStderr }
func (Warning) Msg() string          { return MsgWarning }
func (VerdictChange) Msg() string    { return MsgVerdict }
func (HangDetected) Msg() string     { return MsgHangDetected }
func (ExitOverdue) Msg() string      { return MsgExitOverdue }
func (Kill) Msg() string             { return MsgKill }
func (AgentExited) Msg() string      { return MsgAgentExited }
func (Leftovers) Msg() string        { return MsgLeftovers }
func (DownstreamClosed) Msg() string { return MsgDownstreamClosed }
func (ConfigReloaded) Msg() string   { return MsgConfigReloaded }
func (ConfigError) Msg() string      { return MsgConfigError }
func (OnHang) Msg() string           { return MsgOnHang }
func (OnHangFailed) Msg() string     { return MsgOnHangFailed }
func (NotifySent) Msg() string       { return MsgNotifySent }
func (NotifyFailed) Msg() string     { return MsgNotifyFailed }
func (Exit) Msg() string             { return MsgExit }
func (LogDropped) Msg() string       { return MsgLogDropped }
func (AgentErrorRecord) Msg() string { return MsgAgentError }

func (Command) Level() slog.Level          { return slog.LevelInfo }
func (Restart) Level() slog.Level          { return slog.LevelWarn }
func (Start) Level() slog.Level            { return slog.LevelInfo }
func (StartFailed) Level() slog.Level      { return slog.LevelError }
func (EventLine) Level() slog.Level        { return slog.LevelDebug }
func (Stderr) Level() slog.Level           { return slog.LevelInfo }
func (Warning) Level() slog.Level          { return slog.LevelWarn }
func (VerdictChange) Level() slog.Level    { return slog.LevelInfo }
func (HangDetected) Level() slog.Level     { return slog.LevelError }
func (ExitOverdue) Level() slog.Level      { return slog.LevelWarn }
func (Kill) Level() slog.Level             { return slog.LevelInfo }
func (AgentExited) Level() slog.Level      { return slog.LevelInfo }
func (Leftovers) Level() slog.Level        { return slog.LevelInfo }
func (DownstreamClosed) Level() slog.Level { return slog.LevelWarn }
func (ConfigReloaded) Level() slog.Level   { return slog.LevelInfo }
func (ConfigError) Level() slog.Level      { return slog.LevelWarn }
func (OnHang) Level() slog.Level           { return slog.LevelInfo }
func (OnHangFailed) Level() slog.Level     { return slog.LevelWarn }
func (NotifySent) Level() slog.Level       { return slog.LevelInfo }
func (NotifyFailed) Level() slog.Level     { return slog.LevelWarn }
func (Exit) Level() slog.Level             { return slog.LevelInfo }
func (LogDropped) Level() slog.Level       { return slog.LevelWarn }
func (AgentErrorRecord) Level() slog.Level { return slog.LevelError }

// decoders make an empty record of each type, by name.
var decoders = map[string]func() Record{
	MsgCommand:          func() Record { return &Command{} },
	MsgRestart:          func() Record { return &Restart{} },
	MsgStart:            func() Record { return &Start{} },
	MsgStartFailed:      func() Record { return &StartFailed{} },
	MsgEvent:            func() Record { return &EventLine{} },
	MsgStderr:           func() Record { return &Stderr{} },
	MsgWarning:          func() Record { return &Warning{} },
	MsgVerdict:          func() Record { return &VerdictChange{} },
	MsgHangDetected:     func() Record { return &HangDetected{} },
	MsgExitOverdue:      func() Record { return &ExitOverdue{} },
	MsgKill:             func() Record { return &Kill{} },
	MsgAgentExited:      func() Record { return &AgentExited{} },
	MsgLeftovers:        func() Record { return &Leftovers{} },
	MsgDownstreamClosed: func() Record { return &DownstreamClosed{} },
	MsgConfigReloaded:   func() Record { return &ConfigReloaded{} },
	MsgConfigError:      func() Record { return &ConfigError{} },
	MsgOnHang:           func() Record { return &OnHang{} },
	MsgOnHangFailed:     func() Record { return &OnHangFailed{} },
	MsgNotifySent:       func() Record { return &NotifySent{} },
	MsgNotifyFailed:     func() Record { return &NotifyFailed{} },
	MsgExit:             func() Record { return &Exit{} },
	MsgLogDropped:       func() Record { return &LogDropped{} },
	MsgAgentError:       func() Record { return &AgentErrorRecord{} },
}

// Decode reads one line of a session log: its header and its record, a
// pointer to one of the types above (nil for a record it does not know,
// from a newer version).
func Decode(line []byte) (Header, Record, error) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return h, nil, err
	}
	mk, ok := decoders[h.Msg]
	if !ok {
		return h, nil, nil
	}
	rec := mk()
	if err := json.Unmarshal(line, rec); err != nil {
		return h, nil, fmt.Errorf("a %s record that does not read: %w", h.Msg, err)
	}
	return h, rec, nil
}

// A Recorder writes records to a session log, each with one Write, with
// every secret the redactor knows masked. A nil Recorder writes nothing.
type Recorder struct {
	w       io.Writer
	secrets *redact.Redactor
}

// NewRecorder returns a Recorder writing to w, masking secrets (nil: only
// those of a known shape).
func NewRecorder(w io.Writer, secrets *redact.Redactor) *Recorder {
	if secrets == nil {
		secrets = &redact.Redactor{}
	}
	return &Recorder{w: w, secrets: secrets}
}

// Write writes one record, stamped now.
func (r *Recorder) Write(rec Record) {
	if r == nil {
		return
	}
	_, _ = r.w.Write(r.secrets.Redact(encode(time.Now(), rec))) // The log reports its own failures.
}

// AppendEvent appends an event record, as the package's AppendEvent does,
// to be written with Events. A line that must be kept in base64 is masked
// first: masking looks for secrets in text, which base64 hides.
func (r *Recorder) AppendEvent(b []byte, e Event) []byte {
	valid := utf8.Valid(e.Raw)
	if !valid {
		e.Raw = r.secrets.Redact(e.Raw)
		valid = utf8.Valid(e.Raw) // The mask may have taken the invalid bytes.
	}
	return appendEvent(b, e, valid)
}

// encode makes one record's line.
func encode(t time.Time, rec Record) []byte {
	b := appendHeader(nil, t, rec.Level(), rec.Msg())
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	// As slog writes strings: the redactor looks for secrets in that form.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return fmt.Appendf(b, `,"encode_error":%q}`+"\n", err.Error())
	}
	if fields := bytes.TrimSpace(body.Bytes()); len(fields) > 2 {
		b = append(b, ',')
		b = append(b, fields[1:]...)
		return append(b, '\n')
	}
	return append(b, "}\n"...)
}

// Append writes one record, stamped now and redacted, at the end of the
// log at path, which an attempt wrote and may still write: for records
// that come after it ended. It never creates the file.
func Append(path string, r *redact.Redactor, rec Record) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err // The path is in it.
	}
	// One write with O_APPEND: whole, after whatever the attempt wrote.
	_, err = f.Write(r.Redact(encode(time.Now(), rec)))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	return nil
}

// Events writes event records that AppendEvent built, many at once.
func (r *Recorder) Events(p []byte) {
	if r == nil || len(p) == 0 {
		return
	}
	_, _ = r.w.Write(r.secrets.Redact(p)) // The log reports its own failures.
}

// appendHeader starts a record as slog's JSON handler does.
func appendHeader(b []byte, t time.Time, level slog.Level, msg string) []byte {
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, level.String()...)
	b = append(b, `","msg":"`...)
	b = append(b, msg...)
	return append(b, '"')
}
