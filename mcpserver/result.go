package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// Codes of a failed call or run, in its structured content.
const (
	codeIdle     = "EIDLE"     // silent with no tool call running (kind idle)
	codeTimedOut = "ETIMEDOUT" // tool calls past their deadlines (kind tool), or hard_timeout (kind deadline)
	codeExit     = "EEXIT"     // the agent exited without a result (kind exit)
	codePerson   = "EPERSON"   // the agent asked what only a person can answer (kind person)
	codeBudget   = "EBUDGET"   // the agent reported more than max_tokens or max_cost_usd allows (kind budget)
	codeCanceled = "ECANCELED" // the caller cancelled, or the server is stopping
	codeInvalid  = "EINVAL"    // an argument is wrong; nothing was run
	codeStart    = "ESTART"    // the agent could not be started
	codeUnknown  = "ENOENT"    // no run has this run_id (any more)
	codeBusy     = "EBUSY"     // maxLive runs are queued or running already
)

// Kinds beside the watchdog's idle, tool and deadline.
const (
	kindExit      = "exit"
	kindCancelled = "cancelled"
	kindInvalid   = "invalid"
	kindStart     = "start"
	kindUnknown   = "unknown_run"
	kindBusy      = "busy"
)

const (
	fixArgument  = "fix the argument and call the tool again"
	checkInstall = "check agent_bin in the config file (or --agent-bin), or that the agent CLI is on the server's PATH"
)

// success is the structured content of an answered run.
type success struct {
	RunID       string         `json:"run_id,omitempty"`
	State       string         `json:"state,omitempty"`
	SessionID   string         `json:"session_id"`
	DurationMS  int64          `json:"duration_ms"`
	ToolCalls   int            `json:"tool_calls"`
	ExitStatus  int            `json:"exit_status"`
	LogPath     string         `json:"log_path"`
	IdleTimeout string         `json:"idle_timeout"`
	HardTimeout string         `json:"hard_timeout"`
	Clamped     []config.Clamp `json:"clamped,omitempty"`
	// AnswerBytes is the size of an answer cut to maxAnswer.
	AnswerBytes int `json:"answer_bytes,omitempty"`
	// Usage is what the agent reported it spent over the run; absent when
	// it reported nothing, which is not 0.
	Usage *job.Spent `json:"usage,omitempty"`
}

// failure is the structured content of a call or run that ended without
// an answer, or of arguments refused.
type failure struct {
	RunID   string      `json:"run_id,omitempty"`
	State   string      `json:"state,omitempty"`
	Code    string      `json:"code"`
	Kind    string      `json:"kind"`
	Message string      `json:"message"`
	Reason  *sentReason `json:"reason,omitempty"` // the hang_detected record's reason
	Partial *partial    `json:"partial,omitempty"`
	// SessionID is what to pass back as resume; "" when the agent never
	// named its session.
	SessionID   string         `json:"session_id"`
	LogPath     string         `json:"log_path,omitempty"`
	ExitStatus  int            `json:"exit_status,omitempty"` // as the wrapper command would exit
	DurationMS  int64          `json:"duration_ms,omitempty"`
	Suggestions []string       `json:"suggestions"`
	Clamped     []config.Clamp `json:"clamped,omitempty"`
	// Usage: as in success. usage says it in words for the text, "" for
	// a call that ran no agent.
	Usage *job.Spent `json:"usage,omitempty"`
	usage string
}

// A sentReason is a watchdog reason as the server sends it: at most
// maxOpenCalls open calls, their commands cleaned, and open_call_count
// still counting them all.
type sentReason struct {
	watchdog.Reason
	count int
}

func (r sentReason) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.Reason)
	if err != nil || r.count == len(r.OpenCalls) {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["open_call_count"] = json.RawMessage(strconv.Itoa(r.count))
	return json.Marshal(m)
}

// partial is what the agent had done when it stopped.
type partial struct {
	LastEvents     []string `json:"last_events"`
	StderrTail     string   `json:"stderr_tail"`
	EventsCount    int      `json:"events_count"`
	LastActivityAt string   `json:"last_activity_at,omitempty"` // RFC 3339; absent if it wrote nothing
}

func failed(code, kind, msg string, suggestions ...string) *failure {
	return &failure{Code: code, Kind: kind, Message: msg, Suggestions: append([]string{}, suggestions...)}
}

// refused is the result of a call whose arguments or run_id are refused:
// nothing ran.
func refused(code, kind, msg string, suggestions ...string) *mcp.CallToolResult {
	f := failed(code, kind, msg, suggestions...)
	return sentResult(true, seal(nil, f), (*redact.Redactor)(nil).MaskString(msg))
}

// final is a run's result, kept once it has ended: what run_agent returns,
// and wait_agent once the run has ended. Everything in it that came from
// the agent is redacted.
type final struct {
	state      string
	phase      string // the state in a few words
	isError    bool
	texts      []redact.Masked
	structured redact.Masked // a success or a failure
}

// toolResult is the run's final result as a tool returns it, with the
// news since the last wait when there is some to add.
func (r *run) toolResult(f *final, since *news) *mcp.CallToolResult {
	structured := f.structured
	if since != nil {
		structured = r.secrets().Mask(withField(structured.Bytes(), "since", since))
	}
	return sentResult(f.isError, structured, f.texts...)
}

// failure turns a failure of the run into its final result: the text
// says the same as the structure, in a few plain sentences.
func (r *run) failure(f *failure) *final {
	f.RunID = r.id
	switch f.Code {
	case codeCanceled:
		f.State = stateCancelled
	case codeIdle, codeTimedOut:
		f.State = stateHung
	default:
		f.State = stateFailed
	}
	text := f.Message
	if f.SessionID != "" {
		text += fmt.Sprintf(" Session %s can be continued: call start_agent (or run_agent) with resume=%q.", f.SessionID, f.SessionID)
	}
	if f.usage != "" {
		text += " Usage: " + f.usage + "."
	}
	if f.LogPath != "" {
		text += " The session log is " + f.LogPath + "."
	}
	phase := f.State
	if f.State == stateHung && f.Reason != nil {
		phase = "hung (" + f.Reason.Kind + ")"
		if f.Reason.Kind == watchdog.KindDeadline {
			phase = "timed out (hard_timeout)"
		}
	}
	return &final{state: f.State, phase: phase, isError: true, texts: []redact.Masked{r.mask(text)}, structured: r.seal(f)}
}

// seal encodes v for the client with the run's secrets masked.
func (r *run) seal(v any) redact.Masked { return seal(r.secrets(), v) }

// withField returns the JSON object obj with one more field.
func withField(obj json.RawMessage, key string, v any) json.RawMessage {
	value, err := json.Marshal(v)
	if err != nil || len(obj) < 2 || obj[len(obj)-1] != '}' {
		return obj
	}
	name, _ := json.Marshal(key)
	out := slices.Clip(obj[:len(obj)-1])
	if len(obj) > 2 {
		out = append(out, ',')
	}
	out = append(out, name...)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, '}')
}

// result turns how the agent's run ended into its final result.
func (r *run) result(res job.Result) *final {
	out, logPath := res.Outcome, res.LogPath
	lines, last := r.out.result()
	status := res.End.Status
	took := out.Ended.Sub(out.Started)
	if (out.Cause == ptyproxy.Exited || out.Cause == ptyproxy.Overdue) && out.Done && status == 0 {
		return r.answered(res, took)
	}
	f := &failure{
		SessionID: out.SessionID, LogPath: logPath, ExitStatus: status, DurationMS: took.Milliseconds(), Clamped: r.lim.Clamped,
		Partial: &partial{StderrTail: r.stderr.String(r.redact), EventsCount: out.Lines, LastEvents: []string{}},
		Usage:   job.SpentOf(res.Spent), usage: words.Reported(res.Spent),
	}
	for _, l := range lines {
		f.Partial.LastEvents = append(f.Partial.LastEvents, l.shown(r.redact))
	}
	if !last.IsZero() {
		f.Partial.LastActivityAt = last.Format(time.RFC3339Nano)
	}
	switch q := out.Question; {
	case q != nil:
		// Stopped at the question, or gave up at it: either way a person
		// must act, and a rerun as it is would meet it again.
		f.Code, f.Kind = codePerson, watchdog.KindPerson
		if out.Cause == ptyproxy.AwaitingPerson {
			rs := r.cleanReason(out.Reason)
			f.Reason = &rs
		}
		f.Message = fmt.Sprintf("The agent %s. Its process tree ended after %s.", strings.TrimPrefix(words.Person(r.clean(q.Quote, maxCommand), q.Fix), "the agent "), words.Duration(took))
	case out.Cause == ptyproxy.OverBudget:
		rs := r.cleanReason(out.Reason)
		f.Kind, f.Reason, f.Code = rs.Kind, &rs, codeBudget
		f.Message = fmt.Sprintf("The agent was stopped by its budget: %s. Its process tree was killed after %s.", rs.Describe(), words.Duration(took))
	case out.Cause == ptyproxy.Hung:
		rs := r.cleanReason(out.Reason)
		f.Kind, f.Reason, f.Code = rs.Kind, &rs, codeTimedOut
		if rs.Kind == watchdog.KindIdle {
			f.Code = codeIdle
		}
		verb := "hung"
		if rs.Kind == watchdog.KindDeadline {
			verb = "was stopped"
		}
		f.Message = fmt.Sprintf("The agent %s: %s. Its process tree was killed after %s.", verb, rs.Describe(), words.Duration(took))
	case out.Cause == ptyproxy.Cancelled:
		f.Code, f.Kind = codeCanceled, kindCancelled
		f.Message = fmt.Sprintf("%s, so the agent's process tree was killed after %s.", r.cancelWhy(), words.Duration(took))
	default:
		f.Code, f.Kind = codeExit, kindExit
		f.Message = exitMessage(out, res.End, f.Partial.StderrTail)
	}
	f.Suggestions = r.suggest(f)
	return r.failure(f)
}

// maxAnswer bounds the answer a result holds (and the server keeps, for
// wait_agent): far more than a client passes on to its model.
const maxAnswer = 256 << 10

// answered is the result of a run whose agent gave its answer: the answer
// as text, then one line for the caller's bookkeeping.
func (r *run) answered(res job.Result, took time.Duration) *final {
	out, logPath, spent := res.Outcome, res.LogPath, res.Spent
	s := &success{
		RunID: r.id, State: stateFinished,
		SessionID: out.SessionID, DurationMS: took.Milliseconds(), ToolCalls: out.ToolCalls, ExitStatus: res.End.Status,
		LogPath: logPath, IdleTimeout: r.lim.Idle.String(), HardTimeout: r.lim.Hard.String(), Clamped: r.lim.Clamped,
		Usage: job.SpentOf(spent),
	}
	answer := r.redact(out.Answer)
	if strings.TrimSpace(answer) == "" {
		answer = "(the agent finished without a final message)"
	}
	if len(answer) > maxAnswer {
		s.AnswerBytes = len(answer)
		answer = cutBytes(answer, maxAnswer) + fmt.Sprintf("\n[cursor-wrap: the answer was %d bytes; this is its first %d; the session log has the agent's events]", len(answer), maxAnswer)
	}
	calls := fmt.Sprintf("%d tool calls", out.ToolCalls)
	if out.ToolCalls == 1 {
		calls = "1 tool call"
	}
	note := fmt.Sprintf("[cursor-wrap] session %s finished in %s with %s; usage: %s; log %s", orNone(out.SessionID), words.Duration(took), calls, words.Reported(spent), logPath)
	for _, cl := range r.lim.Clamped {
		note += fmt.Sprintf("; %s %s was clamped to %s (%s)", cl.Name, cl.Requested, cl.Applied, cl.Bound)
	}
	// Masked before it was cut: masking the cut again finds what it found.
	texts := []redact.Masked{r.mask(answer), r.mask(note)}
	return &final{state: stateFinished, phase: stateFinished, texts: texts, structured: r.seal(s)}
}

func exitMessage(out ptyproxy.Outcome, end job.End, stderr string) string {
	var s string
	switch {
	case out.Done:
		s = fmt.Sprintf("The agent answered but exited with status %d.", end.Status)
	case out.ExitSignal != 0:
		// By its name: a syscall.Signal prints as "killed".
		s = fmt.Sprintf("The agent was killed by %s before it gave a result.", words.Signal(out.ExitSignal))
	default:
		s = fmt.Sprintf("The agent exited with status %d without giving a result.", out.ExitCode)
	}
	if l := lastLine(stderr); l != "" {
		s += fmt.Sprintf(" Its last line on stderr: %q.", words.Cut(words.Display(l), 200))
	}
	return s
}

// suggest says what the caller can do next.
func (r *run) suggest(f *failure) []string {
	cfg := r.s.config()
	out := []string{}
	if f.SessionID != "" {
		out = append(out, fmt.Sprintf("call start_agent (or run_agent) with resume=%q and a prompt such as %q to continue where the agent stopped", f.SessionID, "continue"))
	}
	switch f.Kind {
	case watchdog.KindIdle:
		out = append(out, fmt.Sprintf("if the agent was working without output (a long reply is written in silence), call again with a longer idle_timeout (this call had %s; at most %s)",
			r.lim.Idle, cfg.MCP.MaxIdleTimeout))
	case watchdog.KindTool:
		if f.Reason != nil && len(f.Reason.OpenCalls) > 0 {
			oc := f.Reason.OpenCalls[0]
			out = append(out, fmt.Sprintf("%s %q ran past its deadline of %s: if it needs longer, ask the agent to give it a longer timeout, or raise tool_grace or [tool_timeouts] %s in the config",
				oc.Kind, oc.Command, words.Duration(oc.Budget), oc.Kind))
		}
	case watchdog.KindDeadline:
		out = append(out, fmt.Sprintf("the run reached hard_timeout %s: call again with a longer hard_timeout (at most %s), or split the task",
			r.lim.Hard, cfg.MCP.MaxHardTimeout))
	case kindExit:
		out = append(out, "partial.stderr_tail usually says why the agent stopped (not logged in, an unknown model, a network error)")
	case watchdog.KindBudget:
		out = append(out, "the budget counts from the start of each run: a resumed session spends afresh, so resume with a narrower prompt, or split the task, before you raise "+f.Reason.Budget)
	case watchdog.KindPerson:
		out = append(out, "a rerun as it is meets the same question: do what the message names first (a flag such as --trust in args, a login on this machine), then call again")
	}
	if f.LogPath != "" {
		out = append(out, fmt.Sprintf("run `cursor-wrap inspect %s` for a timeline of the session", f.LogPath))
	}
	return out
}

func orNone(id string) string {
	if id == "" {
		return "(no id)"
	}
	return id
}
