// Package mcpserver serves watched agent runs over the Model Context
// Protocol, so that an orchestrating agent can delegate to a coding agent
// as a tool call and never wait on a hang: while the agent works the caller
// gets progress, before a hang kill a warning, and after one a structured
// error that says what the agent was doing and which session to resume.
//
// An agent run outlives a client's tool-call limit (60 s in most) as a
// background run: start_agent starts it, wait_agent long-polls it,
// cancel_agent stops it. run_agent is the same run waited for in one call.
// Every run is one attempt assembled by package job, as the wrapper
// command's are (same watchdog, same session log), and belongs to the
// server: when the client goes or the server stops, every run's tree is
// killed. The agent's output goes to the log and the results, redacted as
// the log is, never to the server's stdout: that carries the transport's
// frames only.
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
)

// Options configure a Server.
type Options struct {
	// Live is the configuration, reloaded when its file changes.
	Live *config.Live
	// Wrapper is the cursor-wrap binary, never taken for the agent; ""
	// for the one installed beside this executable.
	Wrapper string
	// Resolve builds a run's command; nil for job.Resolve. It is called
	// once per run, concurrently with other runs.
	Resolve func(config.Config, job.Request) (job.Command, error)
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
	reg     *registry

	// base is cancelled when the server stops: every run's context ends
	// with it, and runs counts them until their trees are gone.
	base    context.Context
	stopAll context.CancelFunc
	runs    sync.WaitGroup

	seq atomic.Int64
}

// Tool names.
const (
	toolRunAgent    = "run_agent"
	toolStartAgent  = "start_agent"
	toolWaitAgent   = "wait_agent"
	toolCancelAgent = "cancel_agent"
	toolSessions    = "agent_sessions"
)

// New returns a server with its tools.
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
	s := &Server{opts: o, gate: newGate(o.Live.Config().MCP.MaxConcurrent), reg: newRegistry(), console: slog.New(o.Console)}
	o.Live.Subscribe(func(u config.Update) { s.gate.setLimit(u.Config.MCP.MaxConcurrent) })
	s.base, s.stopAll = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "cursor-wrap", Title: "cursor-wrap: watched coding agents", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	mcp.AddTool(s.mcp, &mcp.Tool{Name: toolStartAgent, Description: startAgentDoc}, s.startAgent)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: toolWaitAgent, Description: waitAgentDoc,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.waitAgent)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: toolCancelAgent, Description: cancelAgentDoc}, s.cancelAgent)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: toolRunAgent, Description: runAgentDoc}, s.runAgent)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: toolSessions, Description: sessionsDoc,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.agentSessions)
	return s
}

const instructions = `These tools delegate a task to a headless coding agent that is watched for hangs: ` +
	`a stalled agent is killed and reported as an error with a session_id you can pass back as resume, ` +
	`so you never wait on a hang. A coding task usually takes minutes, and most clients cancel a tool call after ` +
	`about 60 seconds, so start it with start_agent and call wait_agent with its run_id until the run ends ` +
	`(each wait returns within 50 seconds with what the agent is doing). Use run_agent only for a task sure to ` +
	`finish in well under a minute. cancel_agent stops a run; agent_sessions lists runs and recent sessions.`

// Serve serves the client on in and out until it disconnects or ctx is
// done, then kills every agent still running and returns once all of them
// are gone. A Server serves one client, once.
func (s *Server) Serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	defer s.runs.Wait()
	defer s.stopAll()
	w := &frameWriter{w: out}
	t := &mcp.IOTransport{Reader: newFrameReader(in, w, s.console), Writer: w}
	// Warnings reach clients that never set a log level: a warning before
	// a hang kill is the point. logging/setLevel still changes it; from
	// protocol 2026-07-28 on, each request carries its own level instead.
	ss, err := s.mcp.Connect(ctx, t, &mcp.ServerSessionOptions{State: &mcp.ServerSessionState{LogLevel: "warning"}})
	if err != nil {
		return fmt.Errorf("the MCP session: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
		// The SDK cancels calls in flight when the client goes; Wait returns
		// once their handlers have. Background runs end below.
	case <-ctx.Done():
		s.stopAll()
		_ = ss.Close() // Waits for the calls, answered as cancelled.
		err = <-ended
	}
	if err != nil {
		return fmt.Errorf("the MCP session: %w", err)
	}
	return nil
}

// config returns the configuration in force.
func (s *Server) config() config.Config { return s.opts.Live.Config() }

// running reports the log paths of the agents running now.
func (s *Server) running() map[string]bool {
	paths := map[string]bool{}
	for _, r := range s.reg.list() {
		if r.ended() == nil {
			if p := r.logPath(); p != "" {
				paths[p] = true
			}
		}
	}
	return paths
}
