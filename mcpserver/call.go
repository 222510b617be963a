package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/watchdog"
)

const runAgentDoc = `Run a coding agent (cursor-agent by default) headless on a task, in a workspace, and return its final answer. ` +
	`The agent is watched: silence with no tool running for idle_timeout, a tool call past the timeout it declared, ` +
	`or hard_timeout reached is a hang, and then its whole process tree is killed and the result is an error ` +
	`(code EIDLE, ETIMEDOUT or EEXIT) that says what it was doing and gives the session_id to resume. ` +
	`Progress notifications say what the agent is doing while it runs.`

// runInput is run_agent's arguments.
type runInput struct {
	Prompt      string `json:"prompt" jsonschema:"the task for the agent, as you would type it to the agent"`
	Workspace   string `json:"workspace,omitempty" jsonschema:"the directory the agent works in (default: the server's working directory)"`
	Model       string `json:"model,omitempty" jsonschema:"the model the agent uses (default: auto for cursor, the agent's own default for the others)"`
	Agent       string `json:"agent,omitempty" jsonschema:"which agent CLI runs the task: a profile name such as cursor, claude, codex, gemini or opencode (default: the configured agent)"`
	Resume      string `json:"resume,omitempty" jsonschema:"a session_id from an earlier result or from agent_sessions: the agent continues that session"`
	IdleTimeout string `json:"idle_timeout,omitempty" jsonschema:"longest silence with no tool call running, as a Go duration such as 90s or 5m; clamped to the server's bounds"`
	HardTimeout string `json:"hard_timeout,omitempty" jsonschema:"wall-clock cap on the whole run, as a Go duration such as 30m; clamped to the server's bounds"`
}

// launchFor validates the arguments (an error is the caller's to fix) and
// fixes the call's timeouts: a
// requested one, or the config's default, is clamped to the [mcp] bounds.
// hard_timeout defaults to the config's, else to max_hard_timeout: a call
// never runs without a cap.
func launchFor(in runInput, cfg job.Config) (job.Request, job.Limits, error) {
	l := job.Request{Prompt: in.Prompt, Model: in.Model, Agent: in.Agent, Resume: in.Resume}
	lim := job.Limits{Via: "mcp"}
	if strings.TrimSpace(l.Prompt) == "" {
		if l.Resume == "" {
			return l, lim, errors.New("prompt is required")
		}
		l.Prompt = cfg.RestartPrompt
	}
	for name, v := range map[string]string{"resume": l.Resume, "model": l.Model, "agent": l.Agent} {
		// The value becomes an argument of its own: it must not read as a flag.
		if strings.HasPrefix(v, "-") || strings.ContainsAny(v, "\x00\n") {
			return l, lim, fmt.Errorf("%s %q is not a valid %s", name, v, name)
		}
	}
	if in.Workspace != "" {
		dir, err := filepath.Abs(in.Workspace)
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(dir); err == nil && !fi.IsDir() {
				err = errors.New("not a directory")
			}
		}
		if err != nil {
			return l, lim, fmt.Errorf("workspace %s: %v", in.Workspace, err)
		}
		l.Workspace = dir
	}
	m := cfg.MCP
	hardDefault := cfg.HardTimeout
	if hardDefault == 0 {
		hardDefault = m.MaxHardTimeout
	}
	var err error
	if lim.Idle, err = bounded(&lim, "idle_timeout", in.IdleTimeout, cfg.IdleTimeout, m.MinIdleTimeout, m.MaxIdleTimeout); err != nil {
		return l, lim, err
	}
	if lim.Hard, err = bounded(&lim, "hard_timeout", in.HardTimeout, hardDefault, m.MinHardTimeout, m.MaxHardTimeout); err != nil {
		return l, lim, err
	}
	return l, lim, nil
}

// bounded parses a requested duration (or takes def) and clamps it to
// [lo, hi], noting a clamp in lim.
func bounded(lim *job.Limits, name, text string, def, lo, hi time.Duration) (time.Duration, error) {
	d := def
	if text != "" {
		var err error
		if d, err = time.ParseDuration(text); err != nil || d <= 0 {
			return 0, fmt.Errorf("%s %q: want a positive Go duration such as 90s or 5m", name, text)
		}
	}
	applied, bound := d, ""
	switch {
	case d < lo:
		applied, bound = lo, "min_"+name
	case d > hi:
		applied, bound = hi, "max_"+name
	}
	if bound != "" {
		lim.Clamped = append(lim.Clamped, job.Clamp{Name: name, Requested: d.String(), Applied: applied.String(), Bound: "mcp." + bound, FromConfig: text == ""})
	}
	return applied, nil
}

// call is one run_agent call.
type call struct {
	s       *Server
	n       int64
	req     job.Request
	lim     job.Limits
	session *mcp.ServerSession
	token   any // the progress token, nil for none
	arrived time.Time
	console *slog.Logger
	out     *capture
	stderr  *tail
	wake    chan struct{} // to the reporter: something changed

	mu      sync.Mutex // guards what the reporter reads
	queued  bool
	started bool
	status  *ptyproxy.Status
	verdict watchdog.Verdict
	warning *ptyproxy.Status // a warning not sent yet
	job     *job.Job         // set before the agent starts
}

// runAgent is the run_agent tool.
func (s *Server) runAgent(ctx context.Context, req *mcp.CallToolRequest, in runInput) (*mcp.CallToolResult, any, error) {
	cfg := s.config()
	launch, lim, err := launchFor(in, cfg)
	if err != nil {
		return failed(codeInvalid, kindInvalid, err.Error(), fixArgument).toolResult(), nil, nil
	}
	c := &call{
		s: s, n: s.seq.Add(1), req: launch, lim: lim, session: req.Session, token: req.Params.GetProgressToken(),
		arrived: time.Now(), stderr: &tail{max: maxStderr}, wake: make(chan struct{}, 1),
	}
	c.out = newCapture(c.poke)
	c.console = s.console.With("call", c.n)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.base, cancel)()
	stopReports := c.startReports(ctx)
	defer stopReports()

	leave, err := s.gate.enter(ctx, func() {
		c.mu.Lock()
		c.queued = true
		c.mu.Unlock()
		c.poke()
	})
	if err != nil {
		c.console.Info("cancelled before the agent started")
		return c.cancelledEarly(), nil, nil
	}
	defer leave()
	c.mu.Lock()
	c.started = true
	c.mu.Unlock()
	c.poke()

	launch.Wrapper = s.opts.Wrapper
	cmd, err := s.opts.Resolve(s.config(), launch)
	if err != nil {
		c.console.Warn("cannot start the agent: " + err.Error())
		if errors.Is(err, job.ErrInvalid) {
			return failed(codeInvalid, kindInvalid, err.Error(), fixArgument).toolResult(), nil, nil
		}
		return failed(codeStart, kindStart, err.Error(), checkInstall).toolResult(), nil, nil
	}
	res, err := c.run(ctx, cmd)
	stopReports()
	if err != nil {
		c.console.Warn("cannot start the agent: " + err.Error())
		f := failed(codeStart, kindStart, err.Error(), checkInstall)
		f.LogPath = res.LogPath
		return f.toolResult(), nil, nil
	}
	return c.result(res), nil, nil
}

// run runs the agent through a job with its own session log, and returns
// how it ended.
func (c *call) run(ctx context.Context, cmd job.Command) (job.Result, error) {
	j := &job.Job{
		Cmd: cmd, Live: c.s.opts.Live, Stdout: c.out, Stderr: c.stderr, Console: c.s.opts.Console,
		Call: &c.lim, NoRestart: true, OnStatus: c.onStatus, OnEvent: c.out.noteEvent,
	}
	c.mu.Lock()
	c.job = j
	c.mu.Unlock()
	c.s.mu.Lock()
	c.s.calls[c] = true
	c.s.mu.Unlock()
	defer func() {
		c.s.mu.Lock()
		delete(c.s.calls, c)
		c.s.mu.Unlock()
	}()
	c.console.Info("run_agent: starting " + cmd.Profile.Name)
	res, err := j.Run(ctx)
	if err == nil {
		j.Logger().With("call", c.n).Info("run_agent: " + job.Summary(res))
	}
	return res, err
}

// logPath returns the call's session log, "" before it starts.
func (c *call) logPath() string {
	c.mu.Lock()
	j := c.job
	c.mu.Unlock()
	if j == nil {
		return ""
	}
	return j.LogPath()
}

// redact masks the call's secrets: its command's once it is known, the
// server's environment's before.
func (c *call) redact(s string) string {
	c.mu.Lock()
	j := c.job
	c.mu.Unlock()
	if j == nil {
		return s
	}
	return string(j.Redact([]byte(s)))
}
