// Package mcpserver serves watched agent runs over the Model Context
// Protocol, so that an orchestrating agent can delegate to a coding agent
// as a tool call and never wait on a hang: while the agent works the caller
// gets progress, before a hang kill a warning, and after one a structured
// error that says what the agent was doing and which session to resume.
//
// Each run_agent call is one attempt assembled by package job, as the
// wrapper command's are (same watchdog, same session log), with its own
// log file. The
// agent's output goes to the log and the tool result, never to the
// server's stdout: that carries the transport's frames only.
package mcpserver

import (
	"context"
	"cursor-wrap/ptyproxy/job"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a Server.
type Options struct {
	// Live is the configuration, reloaded when its file changes.
	Live *job.Live
	// Wrapper is the cursor-wrap binary, never taken for the agent; ""
	// for the one installed beside this executable.
	Wrapper string
	// Resolve builds a call's command; nil for job.Resolve. It is called
	// once per call, concurrently with other calls.
	Resolve func(job.Config, job.Request) (job.Command, error)
	// Console receives the server's diagnostics; nil for none.
	Console slog.Handler
	Version string
}

// A Server serves one MCP client.
type Server struct {
	opts    Options
	mcp     *mcp.Server
	gate    *gate
	console *slog.Logger

	// base is cancelled when the server stops: every call's context ends
	// with it, so every agent tree is killed before Serve returns.
	base    context.Context
	stopAll context.CancelFunc

	seq   atomic.Int64
	mu    sync.Mutex
	calls map[*call]bool // running agents, for agent_sessions
}

// New returns a server with the run_agent and agent_sessions tools.
func New(o Options) *Server {
	if o.Resolve == nil {
		o.Resolve = job.Resolve
	}
	if o.Wrapper == "" {
		o.Wrapper = job.WrapperBeside()
	}
	if o.Console == nil {
		o.Console = slog.DiscardHandler
	}
	s := &Server{opts: o, gate: newGate(o.Live.Config().MCP.MaxConcurrent), calls: map[*call]bool{}, console: slog.New(o.Console)}
	o.Live.OnChange(func(cfg job.Config) { s.gate.setLimit(cfg.MCP.MaxConcurrent) })
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
func (s *Server) config() job.Config { return s.opts.Live.Config() }

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
