package mcpserver

import (
	"cmp"
	"context"
	"cursor-wrap/ptyproxy/job"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const sessionsDoc = `List recent agent sessions from the session log directory, newest first: the session id ` +
	`(pass it to run_agent as resume), when it started, how it ended (ok, hung, failed, cancelled, running, unfinished), ` +
	`how long it ran, and its log file.`

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
	LogDir   string        `json:"log_dir"`
	Sessions []job.Session `json:"sessions"`
}

// agentSessions is the agent_sessions tool.
func (s *Server) agentSessions(_ context.Context, _ *mcp.CallToolRequest, in sessionsInput) (*mcp.CallToolResult, any, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultSessions
	}
	limit = min(limit, maxSessions)
	dir := s.config().LogDir
	list := sessionList{LogDir: dir, Sessions: job.Sessions(dir, limit, s.running())}
	if list.Sessions == nil {
		list.Sessions = []job.Session{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d sessions in %s, newest first:", len(list.Sessions), dir)
	for _, si := range list.Sessions {
		fmt.Fprintf(&b, "\n%s  %s  %s  %s  %s", cmp.Or(si.ID, "(no id)"), si.Start, si.Outcome,
			(time.Duration(si.DurationMS) * time.Millisecond).String(), si.LogPath)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: list}, nil, nil
}
