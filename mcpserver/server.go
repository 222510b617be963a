// Package mcpserver serves watched agent runs over the Model Context
// Protocol, so that an orchestrating agent can delegate to a coding agent
// as a tool call and never wait on a hang: while the agent works the caller
// gets progress, before a hang kill a warning, and after one a structured
// error that says what the agent was doing and which session to resume.
//
// Each run_agent call is one ptyproxy attempt, run as the wrapper command
// runs it (same watchdog, same session log), with its own log file. The
// agent's output goes to the log and the tool result, never to the
// server's stdout: that carries the transport's frames only.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// A Launch is one run_agent call after validation.
type Launch struct {
	Prompt    string
	Workspace string // an absolute directory, "" for the server's own
	Model     string // "" for the default
	Agent     string // an agent profile's name, "" for the configured agent
	Resume    string // a session id to resume, "" for a new session
}

// A Command is how to start the agent for one launch: the binary, its
// arguments and environment, and the parser of its output stream (nil
// watches bytes only). The server adds everything else: the workspace as
// the working directory, the thresholds, the log, the capture.
type Command struct {
	Agent string // the profile's name, for the session log
	Path  string
	Args  []string
	Env   []string
	Parse func(stream.Line) stream.Event
}

// ErrInvalid marks an error of Prepare that is the caller's to fix (an
// unknown agent, say), as opposed to one of the machine (no agent binary).
var ErrInvalid = errors.New("mcpserver: invalid launch")

// Options configure a Server.
type Options struct {
	// Config is the configuration at start; SetConfig replaces it.
	Config watchdog.Config
	// Prepare resolves the agent and builds its command line exactly as
	// the wrapper command's direct mode does. It is called once per call,
	// concurrently with other calls.
	Prepare func(Launch) (Command, error)
	// Console receives the server's diagnostics, at Level and above; nil
	// for none.
	Console *sessionlog.Console
	Level   slog.Leveler
	Version string
}

// A Server serves one MCP client.
type Server struct {
	opts Options
	mcp  *mcp.Server
	cfg  atomic.Pointer[watchdog.Config]
	gate *gate
	// redact hides the server's environment's secrets from diagnostics
	// about a call before its command is known.
	redact *sessionlog.Redactor

	// base is cancelled when the server stops: every call's context ends
	// with it, so every agent tree is killed before Serve returns.
	base    context.Context
	stopAll context.CancelFunc

	seq   atomic.Int64
	mu    sync.Mutex
	calls map[*call]bool // running agents, for reloads and agent_sessions
}

// New returns a server with the run_agent and agent_sessions tools.
func New(o Options) *Server {
	if o.Level == nil {
		o.Level = slog.LevelInfo
	}
	s := &Server{opts: o, gate: newGate(o.Config.MCP.MaxConcurrent), calls: map[*call]bool{}, redact: sessionlog.NewRedactor(nil, os.Environ())}
	s.cfg.Store(&o.Config)
	s.base, s.stopAll = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "cursor-wrap", Title: "cursor-wrap: watched coding agents", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "run_agent", Description: runAgentDoc}, s.runAgent)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "agent_sessions", Description: sessionsDoc,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.agentSessions)
	return s
}

const instructions = `run_agent delegates a task to a headless coding agent that is watched for hangs: ` +
	`a stalled agent is killed and reported as an error with a session_id you can pass back as resume, ` +
	`so a call never waits on a hang. agent_sessions lists recent sessions.`

// Serve serves the client on t until it disconnects or ctx is done, then
// kills every agent still running and returns once all of them are gone.
// A Server serves one client, once.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	defer s.stopAll()
	// Warnings reach clients that never set a log level: a warning before
	// a hang kill is the point. logging/setLevel still changes it; from
	// protocol 2026-07-28 on, each request carries its own level instead.
	ss, err := s.mcp.Connect(ctx, t, &mcp.ServerSessionOptions{State: &mcp.ServerSessionState{LogLevel: "warning"}})
	if err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
		// The SDK cancels calls in flight when the client goes; Wait returns
		// once their handlers have, so their trees are gone.
	case <-ctx.Done():
		s.stopAll()
		_ = ss.Close() // Waits for the calls, answered as cancelled.
		err = <-ended
	}
	if err != nil {
		return fmt.Errorf("mcpserver: %w", err)
	}
	return nil
}

// config returns the configuration in force.
func (s *Server) config() watchdog.Config { return *s.cfg.Load() }

// SetConfig applies a reloaded configuration: later calls use it, the
// concurrency bound moves, and running agents get the new thresholds at
// once, except for their own idle and hard timeouts, which stay as the
// call set them. changes and pinned are for the calls' config_reloaded
// records (see watchdog.Diff).
func (s *Server) SetConfig(cfg watchdog.Config, changes []watchdog.Change, pinned []string) {
	s.cfg.Store(&cfg)
	s.gate.setLimit(cfg.MCP.MaxConcurrent)
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.calls {
		c.reload(cfg, changes, pinned)
	}
}

// ConfigError tells running agents' logs why a changed config file was not
// applied.
func (s *Server) ConfigError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.calls {
		ptyproxy.SendReload(c.reloads, ptyproxy.Reload{Err: err})
	}
}

// console returns a logger for the server's diagnostics.
func (s *Server) console(r *sessionlog.Redactor) *slog.Logger {
	if s.opts.Console == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(s.opts.Console.Handler(s.opts.Level, r))
}

// running reports the log paths of the agents running now.
func (s *Server) running() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths := map[string]bool{}
	for c := range s.calls {
		if p := c.logPath(); p != "" {
			paths[p] = true
		}
	}
	return paths
}
