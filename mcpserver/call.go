package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
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

// A clamp reports a timeout moved into the server's bounds.
type clamp struct {
	Name      string `json:"name"`
	Requested string `json:"requested"`
	Applied   string `json:"applied"`
	Bound     string `json:"bound"` // the [mcp] key that applied
	// FromConfig: the value was the config's default, not the caller's.
	FromConfig bool `json:"from_config,omitempty"`
}

// limits are one call's timeouts, fixed for its whole run.
type limits struct {
	idle, hard time.Duration
	clamped    []clamp
}

// launchFor validates the arguments (an error is the caller's to fix) and
// fixes the call's timeouts: a
// requested one, or the config's default, is clamped to the [mcp] bounds.
// hard_timeout defaults to the config's, else to max_hard_timeout: a call
// never runs without a cap.
func launchFor(in runInput, cfg watchdog.Config) (Launch, limits, error) {
	l := Launch{Prompt: in.Prompt, Model: in.Model, Agent: in.Agent, Resume: in.Resume}
	if strings.TrimSpace(l.Prompt) == "" {
		if l.Resume == "" {
			return l, limits{}, errors.New("prompt is required")
		}
		l.Prompt = cfg.RestartPrompt
	}
	for name, v := range map[string]string{"resume": l.Resume, "model": l.Model, "agent": l.Agent} {
		// The value becomes an argument of its own: it must not read as a flag.
		if strings.HasPrefix(v, "-") || strings.ContainsAny(v, "\x00\n") {
			return l, limits{}, fmt.Errorf("%s %q is not a valid %s", name, v, name)
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
			return l, limits{}, fmt.Errorf("workspace %s: %v", in.Workspace, err)
		}
		l.Workspace = dir
	}
	m := cfg.MCP
	hardDefault := cfg.HardTimeout
	if hardDefault == 0 {
		hardDefault = m.MaxHardTimeout
	}
	var lim limits
	var err error
	if lim.idle, err = bounded(&lim, "idle_timeout", in.IdleTimeout, cfg.IdleTimeout, m.MinIdleTimeout, m.MaxIdleTimeout); err != nil {
		return l, lim, err
	}
	if lim.hard, err = bounded(&lim, "hard_timeout", in.HardTimeout, hardDefault, m.MinHardTimeout, m.MaxHardTimeout); err != nil {
		return l, lim, err
	}
	return l, lim, nil
}

// bounded parses a requested duration (or takes def) and clamps it to
// [lo, hi], noting a clamp in lim.
func bounded(lim *limits, name, text string, def, lo, hi time.Duration) (time.Duration, error) {
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
		lim.clamped = append(lim.clamped, clamp{Name: name, Requested: d.String(), Applied: applied.String(), Bound: "mcp." + bound, FromConfig: text == ""})
	}
	return applied, nil
}

// call is one run_agent call.
type call struct {
	s       *Server
	n       int64
	launch  Launch
	lim     limits
	session *mcp.ServerSession
	token   any // the progress token, nil for none
	arrived time.Time
	console *slog.Logger
	reloads chan ptyproxy.Reload
	out     *capture
	stderr  *tail
	redact  *sessionlog.Redactor // the command's, set before it runs
	wake    chan struct{}        // to the reporter: something changed

	mu      sync.Mutex // guards what the reporter reads
	queued  bool
	started bool
	status  *ptyproxy.Status
	verdict watchdog.Verdict
	warning *ptyproxy.Status // a warning not sent yet
	log     *sessionlog.File
}

// runAgent is the run_agent tool.
func (s *Server) runAgent(ctx context.Context, req *mcp.CallToolRequest, in runInput) (*mcp.CallToolResult, any, error) {
	cfg := s.config()
	launch, lim, err := launchFor(in, cfg)
	if err != nil {
		return failed(codeInvalid, kindInvalid, err.Error(), fixArgument).toolResult(), nil, nil
	}
	c := &call{
		s: s, n: s.seq.Add(1), launch: launch, lim: lim, session: req.Session, token: req.Params.GetProgressToken(),
		arrived: time.Now(), reloads: make(chan ptyproxy.Reload, 1),
		stderr: &tail{max: maxStderr}, wake: make(chan struct{}, 1),
	}
	c.out = newCapture(c.poke)
	c.console = s.console(s.redact).With("call", c.n)

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

	cmd, err := s.opts.Prepare(launch)
	if err != nil {
		c.console.Warn("cannot start the agent: " + err.Error())
		if errors.Is(err, ErrInvalid) {
			return failed(codeInvalid, kindInvalid, err.Error(), fixArgument).toolResult(), nil, nil
		}
		return failed(codeStart, kindStart, err.Error(), checkInstall).toolResult(), nil, nil
	}
	out, logPath, err := c.run(ctx, cmd)
	stopReports()
	if err != nil {
		c.console.Warn("cannot start the agent: " + err.Error())
		f := failed(codeStart, kindStart, err.Error(), checkInstall)
		f.LogPath = logPath
		return f.toolResult(), nil, nil
	}
	return c.result(out, logPath), nil, nil
}

// run runs the agent with its own session log, as the wrapper command's
// attempt does, and returns the outcome and the log's path.
func (c *call) run(ctx context.Context, cmd Command) (ptyproxy.Outcome, string, error) {
	// Registered before the config is read, a call misses no reload.
	c.s.mu.Lock()
	c.s.calls[c] = true
	c.s.mu.Unlock()
	defer func() {
		c.s.mu.Lock()
		delete(c.s.calls, c)
		c.s.mu.Unlock()
	}()
	cfg := c.s.config()
	start := time.Now()
	if err := sessionlog.Prune(cfg.LogDir, cfg.LogKeep); err != nil {
		c.console.Debug("pruning old session logs: " + err.Error())
	}
	logFile := sessionlog.Open(cfg.LogDir, start, func(err error) {
		c.console.Warn("session log disabled: " + err.Error())
	})
	defer logFile.Close()
	redact := sessionlog.NewRedactor(cmd.Args, cmd.Env)
	c.redact = redact
	console := c.s.console(redact).With("call", c.n)
	records := redact.Writer(logFile)
	log := slog.New(slog.NewJSONHandler(records, &slog.HandlerOptions{Level: slog.LevelDebug}))
	log.Info("command", "attempt", 1, "agent", cmd.Agent, "path", cmd.Path,
		"argv", redact.Args(cmd.Args), "env", redact.Env(cmd.Env), "watch", map[bool]string{true: "events", false: "bytes"}[cmd.Parse != nil],
		"via", "mcp", "idle_timeout", c.lim.idle.String(), "hard_timeout", c.lim.hard.String(), "clamped", c.lim.clamped)
	console.Info("run_agent: starting "+cmd.Agent, "log", logFile.Path())

	c.mu.Lock()
	c.log = logFile
	c.mu.Unlock()

	out, err := ptyproxy.Run(ctx, ptyproxy.Options{
		Path:            cmd.Path,
		Args:            cmd.Args,
		Env:             cmd.Env,
		Dir:             c.launch.Workspace,
		Stdout:          c.out,
		Stderr:          c.stderr,
		Parse:           c.out.watch(cmd.Parse),
		Thresholds:      c.thresholds(cfg),
		Tick:            cfg.TickInterval,
		KillGrace:       cfg.KillGrace,
		Reload:          c.reloads,
		Log:             log,
		Events:          records,
		Console:         console,
		OnSession:       logFile.Rename,
		OnStatus:        c.onStatus,
		ClaimAllOrphans: false, // Other calls' agents run beside this one.
	})
	if err != nil {
		log.Error("start_failed", "error", err.Error())
		return out, logFile.Path(), err
	}
	if out.Cause == ptyproxy.Hung && c.s.config().OnHang != "" {
		c.onHang(out, logFile.Path(), redact, log, console)
	}
	if out.Status() != 0 {
		defer logFile.Sync() // A failed run's log must survive a crash too.
	}
	log.Info("exit", "cause", out.Cause.String(), "status", out.Status(), "duration_ms", out.Ended.Sub(out.Started).Milliseconds(),
		"lines", out.Lines, "tool_calls", out.ToolCalls, "longest_silence_ms", out.LongestSilence.Milliseconds())
	console.Info("run_agent: " + outcomeWords(out))
	return out, logFile.Path(), nil
}

// thresholds are the config's, with the call's own idle and hard timeouts.
func (c *call) thresholds(cfg watchdog.Config) watchdog.Thresholds {
	th := cfg.Thresholds()
	th.IdleTimeout, th.HardTimeout = c.lim.idle, c.lim.hard
	return th
}

// pinnedKeys are the settings a call fixes for its whole run.
var pinnedKeys = []string{"idle_timeout", "hard_timeout"}

// reload hands a reloaded config to the running agent. Changes to the
// call's own timeouts are reported as pinned, since they do not apply.
func (c *call) reload(cfg watchdog.Config, changes []watchdog.Change, pinned []string) {
	var applied []watchdog.Change
	for _, ch := range changes {
		if slices.Contains(pinnedKeys, ch.Key) {
			pinned = append(slices.Clip(pinned), ch.Key+" (set by the run_agent call)")
			continue
		}
		applied = append(applied, ch)
	}
	ptyproxy.SendReload(c.reloads, ptyproxy.Reload{Thresholds: c.thresholds(cfg), Tick: cfg.TickInterval, KillGrace: cfg.KillGrace, Changes: applied, Pinned: pinned})
}

// logPath returns the call's session log, "" before it starts.
func (c *call) logPath() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.log == nil {
		return ""
	}
	return c.log.Path()
}

// onHang runs the config's on_hang command, as the wrapper command does.
// Its failure is logged only.
func (c *call) onHang(out ptyproxy.Outcome, logPath string, redact *sessionlog.Redactor, log, console *slog.Logger) {
	command := c.s.config().OnHang
	output, err := ptyproxy.RunOnHang(command, out, 1, logPath, redact.Redact)
	if err != nil {
		log.Warn("on_hang_failed", "command", command, "error", err.Error(), "output", string(output))
		console.Warn("on_hang command failed: " + err.Error())
		return
	}
	log.Info("on_hang", "command", command, "output", string(output))
}
