package mcpserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/watchdog"
)

// Codes of a failed run_agent call, in its structured content.
const (
	codeIdle     = "EIDLE"     // silent with no tool call running (kind idle)
	codeTimedOut = "ETIMEDOUT" // tool calls past their deadlines (kind tool), or hard_timeout (kind deadline)
	codeExit     = "EEXIT"     // the agent exited without a result (kind exit)
	codeCanceled = "ECANCELED" // the caller cancelled, or the server is stopping
	codeInvalid  = "EINVAL"    // an argument is wrong; nothing was run
	codeStart    = "ESTART"    // the agent could not be started
)

// Kinds beside the watchdog's idle, tool and deadline.
const (
	kindExit      = "exit"
	kindCancelled = "cancelled"
	kindInvalid   = "invalid"
	kindStart     = "start"
)

const (
	fixArgument  = "fix the argument and call run_agent again"
	checkInstall = "check agent_bin in the config file (or --agent-bin), or that the agent CLI is on the server's PATH"
)

// success is the structured content of an answered call.
type success struct {
	SessionID   string      `json:"session_id"`
	DurationMS  int64       `json:"duration_ms"`
	ToolCalls   int         `json:"tool_calls"`
	ExitStatus  int         `json:"exit_status"`
	LogPath     string      `json:"log_path"`
	IdleTimeout string      `json:"idle_timeout"`
	HardTimeout string      `json:"hard_timeout"`
	Clamped     []job.Clamp `json:"clamped,omitempty"`
}

// failure is the structured content of a call that ended without an
// answer.
type failure struct {
	Code    string           `json:"code"`
	Kind    string           `json:"kind"`
	Message string           `json:"message"`
	Reason  *watchdog.Reason `json:"reason,omitempty"` // the hang_detected record's reason
	Partial *partial         `json:"partial,omitempty"`
	// SessionID is what to pass back as resume; "" when the agent never
	// named its session.
	SessionID   string      `json:"session_id"`
	LogPath     string      `json:"log_path,omitempty"`
	ExitStatus  int         `json:"exit_status,omitempty"` // as the wrapper command would exit
	DurationMS  int64       `json:"duration_ms,omitempty"`
	Suggestions []string    `json:"suggestions"`
	Clamped     []job.Clamp `json:"clamped,omitempty"`
}

// partial is what the agent had done when it stopped.
type partial struct {
	LastEvents     []string `json:"last_events"`
	StderrTail     string   `json:"stderr_tail"`
	EventsCount    int      `json:"events_count"`
	LastActivityAt string   `json:"last_activity_at,omitempty"` // RFC 3339; absent if it wrote nothing
}

func failed(code, kind, msg string, suggestions ...string) *failure {
	return &failure{Code: code, Kind: kind, Message: msg, Suggestions: suggestions}
}

// toolResult is the failure as an error result whose text says the same as
// the structure, in a few plain sentences.
func (f *failure) toolResult() *mcp.CallToolResult {
	text := f.Message
	if f.SessionID != "" {
		text += fmt.Sprintf(" Session %s can be continued: call run_agent with resume=%q.", f.SessionID, f.SessionID)
	}
	if f.LogPath != "" {
		text += " The session log is " + f.LogPath + "."
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: f}
}

// result turns how the agent's run ended into the tool's result.
func (c *call) result(res job.Result) *mcp.CallToolResult {
	out, logPath := res.Outcome, res.LogPath
	lines, last := c.out.result()
	status := job.Status(out)
	took := out.Ended.Sub(out.Started)
	if (out.Cause == ptyproxy.Exited || out.Cause == ptyproxy.Overdue) && out.Done && status == 0 {
		return c.answered(out, c.redact(out.Answer), logPath, took)
	}
	f := &failure{
		SessionID: out.SessionID, LogPath: logPath, ExitStatus: status, DurationMS: took.Milliseconds(), Clamped: c.lim.Clamped,
		Partial: &partial{StderrTail: c.redact(c.stderr.String()), EventsCount: out.Lines, LastEvents: []string{}},
	}
	for _, l := range lines {
		f.Partial.LastEvents = append(f.Partial.LastEvents, c.redact(l))
	}
	if !last.IsZero() {
		f.Partial.LastActivityAt = last.Format(time.RFC3339Nano)
	}
	switch out.Cause {
	case ptyproxy.Hung:
		r := out.Reason
		f.Kind, f.Reason, f.Code = r.Kind, &r, codeTimedOut
		if r.Kind == watchdog.KindIdle {
			f.Code = codeIdle
		}
		verb := "hung"
		if r.Kind == watchdog.KindDeadline {
			verb = "was stopped"
		}
		f.Message = fmt.Sprintf("The agent %s: %s. Its process tree was killed after %s.", verb, r.Describe(), watchdog.Round(took))
	case ptyproxy.Cancelled:
		f.Code, f.Kind = codeCanceled, kindCancelled
		why := "The call was cancelled"
		if c.s.base.Err() != nil {
			why = "The MCP server is stopping"
		}
		f.Message = fmt.Sprintf("%s, so the agent's process tree was killed after %s.", why, watchdog.Round(took))
	default:
		f.Code, f.Kind = codeExit, kindExit
		f.Message = exitMessage(out, status, f.Partial.StderrTail)
	}
	f.Suggestions = c.suggest(f, out.Reason)
	return f.toolResult()
}

// answered is the result of a call whose agent gave its answer: the
// answer as text, then one line for the caller's bookkeeping.
func (c *call) answered(out ptyproxy.Outcome, answer, logPath string, took time.Duration) *mcp.CallToolResult {
	s := &success{
		SessionID: out.SessionID, DurationMS: took.Milliseconds(), ToolCalls: out.ToolCalls, ExitStatus: job.Status(out),
		LogPath: logPath, IdleTimeout: c.lim.Idle.String(), HardTimeout: c.lim.Hard.String(), Clamped: c.lim.Clamped,
	}
	if strings.TrimSpace(answer) == "" {
		answer = "(the agent finished without a final message)"
	}
	calls := fmt.Sprintf("%d tool calls", out.ToolCalls)
	if out.ToolCalls == 1 {
		calls = "1 tool call"
	}
	note := fmt.Sprintf("[cursor-wrap] session %s finished in %s with %s; log %s", orNone(out.SessionID), watchdog.Round(took), calls, logPath)
	for _, cl := range c.lim.Clamped {
		note += fmt.Sprintf("; %s %s was clamped to %s (%s)", cl.Name, cl.Requested, cl.Applied, cl.Bound)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer}, &mcp.TextContent{Text: note}}, StructuredContent: s}
}

// cancelledEarly is the result of a call cancelled before its agent
// started.
func (c *call) cancelledEarly() *mcp.CallToolResult {
	f := failed(codeCanceled, kindCancelled, "The call was cancelled before its agent started.")
	f.Clamped = c.lim.Clamped
	return f.toolResult()
}

func exitMessage(out ptyproxy.Outcome, status int, stderr string) string {
	var s string
	switch {
	case out.Done:
		s = fmt.Sprintf("The agent answered but exited with status %d.", status)
	case out.ExitSignal != 0:
		s = fmt.Sprintf("The agent was killed by %s before it gave a result.", out.ExitSignal)
	default:
		s = fmt.Sprintf("The agent exited with status %d without giving a result.", out.ExitCode)
	}
	if l := lastLine(stderr); l != "" {
		if len(l) > 200 {
			l = l[:197] + "..."
		}
		s += fmt.Sprintf(" Its last line on stderr: %q.", l)
	}
	return s
}

// suggest says what the caller can do next.
func (c *call) suggest(f *failure, r watchdog.Reason) []string {
	cfg := c.s.config()
	out := []string{}
	if f.SessionID != "" {
		out = append(out, fmt.Sprintf("call run_agent with resume=%q and a prompt such as %q to continue where the agent stopped", f.SessionID, "continue"))
	}
	switch f.Kind {
	case watchdog.KindIdle:
		out = append(out, fmt.Sprintf("if the agent was working without output (a long reply is written in silence), call again with a longer idle_timeout (this call had %s; at most %s)",
			c.lim.Idle, cfg.MCP.MaxIdleTimeout))
	case watchdog.KindTool:
		if len(r.OpenCalls) > 0 {
			oc := r.OpenCalls[0]
			out = append(out, fmt.Sprintf("%s %q ran past its deadline of %s: if it needs longer, ask the agent to give it a longer timeout, or raise tool_grace or [tool_timeouts] %s in the config",
				oc.Kind, oc.Command, watchdog.Round(oc.Budget), oc.Kind))
		}
	case watchdog.KindDeadline:
		out = append(out, fmt.Sprintf("the run reached hard_timeout %s: call again with a longer hard_timeout (at most %s), or split the task",
			c.lim.Hard, cfg.MCP.MaxHardTimeout))
	case kindExit:
		out = append(out, "partial.stderr_tail usually says why the agent stopped (not logged in, an unknown model, a network error)")
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
