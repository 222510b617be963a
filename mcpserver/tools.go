package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/words"
)

const runAgentDoc = `Run a coding agent (cursor-agent by default) headless on a task, in a workspace, and wait in this one call for its final answer. ` +
	`Use it only for a task sure to finish in well under a minute: most MCP clients cancel a tool call after about 60 seconds, ` +
	`and a cancelled call kills the agent. For anything that may take over a minute (most coding tasks), use start_agent and wait_agent instead. ` +
	`The agent is watched: silence with no tool running for idle_timeout, a tool call past the timeout it declared, ` +
	`or hard_timeout reached is a hang, and then its whole process tree is killed and the result is an error ` +
	`(code EIDLE, ETIMEDOUT or EEXIT) that says what it was doing and gives the session_id to resume. ` +
	`Progress notifications say what the agent is doing while it runs.`

const startAgentDoc = `Start a coding agent (cursor-agent by default) headless on a task, in the background, and return at once with a run_id. ` +
	`Use this, not run_agent, for anything that may take over a minute: then call wait_agent with the run_id, again and again, ` +
	`until its state is finished, hung, failed or cancelled; each wait_agent call returns within 50 seconds with what the agent is doing, ` +
	`and the final answer once it has ended. Same arguments, watchdog and result as run_agent; cancel_agent stops the run. ` +
	`Runs belong to this MCP server: they are killed when it stops or the client disconnects.`

const waitAgentDoc = `Wait for a run started by start_agent, for up to wait seconds (default 25, at most 50), and say where it is: ` +
	`its state (queued, running, finished, hung, failed, cancelled), its phase (what the agent is doing now), ` +
	`the tool calls it started and ended and the warnings raised since the last wait_agent on the run, ` +
	`and once the run has ended the same result run_agent returns (the final answer, or a structured error with the session_id to resume). ` +
	`It returns early when the run ends or a hang warning is raised. While the state is queued or running, call it again. ` +
	`Results are kept for an hour after the run ends.`

const cancelAgentDoc = `Stop a run started by start_agent (or run_agent) at once: the agent's whole process tree is killed and the run ends cancelled. ` +
	`Returns the run's final result, with the session_id to resume it later.`

// startWait bounds how long start_agent waits for the agent to name its
// session, so that the answer has it.
const startWait = 2 * time.Second

// Bounds of wait_agent's wait: the default fits under a client's 60 s
// limit with room for the answer; the maximum still fits.
const (
	defaultWait = 25 * time.Second
	maxWait     = 50 * time.Second
)

// start validates the arguments, resolves the command and starts a run; a
// result instead of a run is the call's answer: nothing ran.
func (s *Server) start(ctx context.Context, req *mcp.CallToolRequest, in runInput, tool string) (*run, *mcp.CallToolResult) {
	cfg := s.config()
	launch, lim, err := launchFor(in, cfg)
	if err != nil {
		return nil, refused(codeInvalid, kindInvalid, err.Error(), fixArgument)
	}
	n := s.seq.Add(1)
	console := s.console.With("call", n)
	launch.Wrapper = s.opts.Wrapper
	cmd, err := s.opts.Resolve(cfg, launch)
	if err != nil {
		console.Warn("cannot start the agent: " + err.Error())
		if errors.Is(err, job.ErrInvalid) {
			return nil, refused(codeInvalid, kindInvalid, err.Error(), fixArgument)
		}
		return nil, refused(codeStart, kindStart, err.Error(), checkInstall)
	}
	r := &run{
		s: s, id: newRunID(), n: n, tool: tool, req: launch, lim: lim, arrived: time.Now(), console: console,
		stderr: newTail(maxStderr), session: req.Session, logCtx: context.WithoutCancel(ctx),
		wake: make(chan struct{}, 1), done: make(chan struct{}), changed: make(chan struct{}),
	}
	r.out = newCapture(cmd.Profile, func() {
		r.mu.Lock()
		r.notifyLocked()
		r.mu.Unlock()
	})
	r.job = &job.Job{
		Cmd: cmd, Live: s.opts.Live, IO: ptyproxy.IO{Stdout: r.out, Stderr: r.stderr}, Console: s.opts.Console,
		Call: &r.lim, NoRestart: true, OnStatus: r.onStatus, OnEvent: r.onEvent, OnSession: r.onSession,
		TraceParent: traceParent(req),
	}
	r.ctx, r.cancel = context.WithCancelCause(s.base)
	if !s.reg.add(r) {
		r.cancel(nil)
		return nil, refused(codeBusy, kindBusy, fmt.Sprintf("%d runs are queued or running already, the most this server takes: wait for some to end, or cancel some", maxLive))
	}
	s.runs.Add(1)
	go r.execute()
	return r, nil
}

// runAgent is the run_agent tool: a run waited for to its end in the one
// call. Cancelling the call cancels the run.
func (s *Server) runAgent(ctx context.Context, req *mcp.CallToolRequest, in runInput) (*mcp.CallToolResult, any, error) {
	r, res := s.start(ctx, req, in, toolRunAgent)
	if res != nil {
		return res, nil, nil
	}
	defer context.AfterFunc(ctx, func() { r.cancel(errCallCancelled) })()
	r.follow(ctx, req.Session, req.Params.GetProgressToken(), time.Time{}, func() bool { return r.ended() != nil })
	<-r.done // Once cancelled, the run ends as soon as its tree is gone.
	return r.toolResult(r.ended(), nil), nil, nil
}

// started is the structured content of start_agent's answer.
type started struct {
	RunID     string `json:"run_id"`
	State     string `json:"state"`
	Phase     string `json:"phase"`
	SessionID string `json:"session_id,omitempty"`
	LogPath   string `json:"log_path,omitempty"`
}

// startAgent is the start_agent tool: a run left to go on in the
// background. The answer comes once the run is queued, has named its
// session, or has ended, and at most startWait after the call.
func (s *Server) startAgent(ctx context.Context, req *mcp.CallToolRequest, in runInput) (*mcp.CallToolResult, any, error) {
	r, res := s.start(ctx, req, in, toolStartAgent)
	if res != nil {
		return res, nil, nil
	}
	r.follow(ctx, nil, nil, time.Now().Add(startWait), func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.queued || r.sessionID != "" || r.final != nil
	})
	r.mu.Lock()
	st := started{RunID: r.id, State: r.stateLocked(), SessionID: r.sessionID}
	r.mu.Unlock()
	st.Phase, st.LogPath = r.phase(time.Now()), r.logPath()
	text := fmt.Sprintf("Started run %s (%s: %s).", st.RunID, st.State, st.Phase)
	if st.SessionID != "" {
		text += " Its session is " + st.SessionID + "."
	}
	if r.ended() != nil {
		text += fmt.Sprintf(" It has ended already: call wait_agent with run_id=%q for its result.", r.id)
	} else {
		text += fmt.Sprintf(" It goes on in the background: call wait_agent with run_id=%q until its state is finished, hung, failed or cancelled; cancel_agent stops it.", r.id)
	}
	return sentResult(false, r.seal(st), r.mask(text)), nil, nil
}

// runRef is the argument of cancel_agent.
type runRef struct {
	RunID string `json:"run_id" jsonschema:"the run_id start_agent returned"`
}

// waitInput is wait_agent's arguments.
type waitInput struct {
	RunID string   `json:"run_id" jsonschema:"the run_id start_agent returned"`
	Wait  *float64 `json:"wait,omitempty" jsonschema:"seconds to wait for the run to end (default 25, at most 50); it returns earlier when the run ends or a warning is raised"`
}

// waiting is the structured content of wait_agent's answer while the run
// goes on.
type waiting struct {
	RunID     string `json:"run_id"`
	State     string `json:"state"`
	Phase     string `json:"phase"`
	SessionID string `json:"session_id,omitempty"`
	LogPath   string `json:"log_path,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Since     news   `json:"since"`
}

// lookup returns the run with id, or the tool's error result.
func (s *Server) lookup(id string) (*run, *mcp.CallToolResult) {
	if r := s.reg.get(id); r != nil {
		return r, nil
	}
	return nil, refused(codeUnknown, kindUnknown, fmt.Sprintf("No run has run_id %q: it was never started by this server, or it ended more than %s ago or before the last %d results kept, or the server has restarted since.",
		words.Cut(words.Display(id), 80), keepFor, keepEnded), "call agent_sessions to list the runs this server knows; a session_id from an ended run can still be resumed with start_agent")
}

// waitAgent is the wait_agent tool.
func (s *Server) waitAgent(ctx context.Context, req *mcp.CallToolRequest, in waitInput) (*mcp.CallToolResult, any, error) {
	wait := defaultWait
	if in.Wait != nil {
		if *in.Wait < 0 {
			return refused(codeInvalid, kindInvalid, fmt.Sprintf("wait %v: want a number of seconds from 0 to %d", *in.Wait, int(maxWait.Seconds())), fixArgument), nil, nil
		}
		// Clamped as seconds: a huge number would overflow a Duration.
		wait = time.Duration(min(*in.Wait, maxWait.Seconds()) * float64(time.Second))
	}
	r, res := s.lookup(in.RunID)
	if res != nil {
		return res, nil, nil
	}
	r.follow(ctx, req.Session, req.Params.GetProgressToken(), time.Now().Add(wait), func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.final != nil || r.news.warned()
	})
	return r.report(), nil, nil
}

// report is wait_agent's answer: the run's result once it has ended,
// else where it is; either way with the news since the last wait.
func (r *run) report() *mcp.CallToolResult {
	now := time.Now()
	r.mu.Lock()
	since := r.news.take()
	f := r.final
	w := waiting{RunID: r.id, State: r.stateLocked(), SessionID: r.sessionID, ElapsedMS: now.Sub(r.arrived).Milliseconds(), Since: since}
	r.mu.Unlock()
	if f != nil {
		return r.toolResult(f, &since)
	}
	w.Phase, w.LogPath = r.phase(now), r.logPath()
	text := fmt.Sprintf("Run %s is %s after %s: %s.", r.id, w.State, words.Duration(now.Sub(r.arrived)), w.Phase)
	if s := since.String(); s != "" {
		text += " Since the last wait: " + s + "."
	}
	text += fmt.Sprintf(" Call wait_agent with run_id=%q again to keep waiting, or cancel_agent to stop it.", r.id)
	return sentResult(false, r.seal(w), r.mask(words.Display(r.redact(text))))
}

// cancelWait bounds how long cancel_agent waits for the run to end, past
// kill_grace: a tree killed is gone in well under that.
const cancelWait = 10 * time.Second

// cancelAgent is the cancel_agent tool.
func (s *Server) cancelAgent(ctx context.Context, _ *mcp.CallToolRequest, in runRef) (*mcp.CallToolResult, any, error) {
	r, res := s.lookup(in.RunID)
	if res != nil {
		return res, nil, nil
	}
	already := r.ended()
	r.cancel(errCancelAgent)
	timer := time.NewTimer(s.config().KillGrace + cancelWait)
	defer timer.Stop()
	select {
	case <-r.done:
	case <-timer.C:
		return refused(codeBusy, kindBusy, fmt.Sprintf("Run %s was told to stop, but its process tree is not gone yet: call wait_agent to see it end.", r.id)), nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	f := r.ended()
	what := "Cancelled run " + r.id + ": "
	if already != nil {
		what = fmt.Sprintf("Run %s had already ended (%s); nothing was cancelled. ", r.id, f.state)
	}
	texts := slices.Clone(f.texts)
	texts[0] = r.mask(what + texts[0].String())
	// The run's result is an error; stopping it is what was asked.
	return sentResult(false, f.structured, texts...), nil, nil
}

// traceParent is the caller's place in a trace, as MCP clients that trace
// send it: params._meta.traceparent; "" for none.
func traceParent(req *mcp.CallToolRequest) string {
	if req.Params == nil {
		return ""
	}
	tp, _ := req.Params.Meta["traceparent"].(string)
	return tp
}
