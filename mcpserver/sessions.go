package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/redact"
)

const sessionsDoc = `List this server's runs, newest first: run_id (for wait_agent and cancel_agent), state ` +
	`(queued, running, finished, hung, failed, cancelled) and phase; and recent agent sessions from the session log ` +
	`directory, newest first: the session id (pass it to start_agent or run_agent as resume), when it started, how it ended ` +
	`(ok, hung, failed, cancelled, running, unfinished), how long it ran, and its log file.`

// sessionsInput is agent_sessions' arguments.
type sessionsInput struct {
	Limit int `json:"limit,omitempty" jsonschema:"how many sessions to list, newest first (default 20, at most 200)"`
}

// Bounds on agent_sessions' answer: each entry reads a whole log.
const (
	defaultSessions = 20
	maxSessions     = 200
)

type sessionList struct {
	Runs     []runInfo     `json:"runs"`
	LogDir   string        `json:"log_dir"`
	Sessions []job.Session `json:"sessions"`
}

// runInfo is one run of this server at a glance.
type runInfo struct {
	RunID     string `json:"run_id"`
	State     string `json:"state"`
	Phase     string `json:"phase"`
	Tool      string `json:"tool"`   // run_agent or start_agent
	Prompt    string `json:"prompt"` // its start
	SessionID string `json:"session_id,omitempty"`
	LogPath   string `json:"log_path,omitempty"`
	Started   string `json:"started"` // RFC 3339: when it was asked for
	Ended     string `json:"ended,omitempty"`
}

// info returns the run at a glance, what came from the agent cleaned.
func (r *run) info(now time.Time) runInfo {
	r.mu.Lock()
	ri := runInfo{RunID: r.id, State: r.stateLocked(), Tool: r.tool, SessionID: r.clean(r.sessionID, maxName), Started: r.arrived.Format(time.RFC3339)}
	if !r.endedAt.IsZero() {
		ri.Ended = r.endedAt.Format(time.RFC3339)
	}
	r.mu.Unlock()
	ri.Phase, ri.LogPath, ri.Prompt = r.phase(now), r.logPath(), r.clean(r.req.Prompt, 60)
	return ri
}

// agentSessions is the agent_sessions tool.
func (s *Server) agentSessions(_ context.Context, _ *mcp.CallToolRequest, in sessionsInput) (*mcp.CallToolResult, any, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultSessions
	}
	limit = min(limit, maxSessions)
	dir := s.config().LogDir
	now := time.Now()
	list := sessionList{Runs: []runInfo{}, LogDir: dir, Sessions: job.Sessions(dir, limit, s.running())}
	for _, r := range s.reg.list() {
		list.Runs = append(list.Runs, r.info(now))
	}
	if list.Sessions == nil {
		list.Sessions = []job.Session{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs of this server, newest first:", len(list.Runs))
	for _, ri := range list.Runs {
		fmt.Fprintf(&b, "\n%s  %s  %s  %s  (%s: %q)", ri.RunID, ri.State, ri.Phase, cmp.Or(ri.SessionID, "(no session yet)"), ri.Tool, ri.Prompt)
	}
	fmt.Fprintf(&b, "\n%d sessions in %s, newest first:", len(list.Sessions), dir)
	for _, si := range list.Sessions {
		fmt.Fprintf(&b, "\n%s  %s  %s  %s  %s", cmp.Or(si.ID, "(no id)"), si.Start, si.Told(),
			(time.Duration(si.DurationMS) * time.Millisecond).String(), si.LogPath)
	}
	// The logs were masked as they were written; what is known of a
	// secret's shape is masked again.
	return sentResult(false, seal(nil, list), (*redact.Redactor)(nil).MaskString(b.String())), nil, nil
}
