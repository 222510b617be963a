package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy/sessionlog"
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

type sessionInfo struct {
	ID         string `json:"id"` // "" when the agent never named its session
	Start      string `json:"start"`
	Outcome    string `json:"outcome"`
	DurationMS int64  `json:"duration_ms"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	LogPath    string `json:"log_path"`
}

type sessionList struct {
	LogDir   string        `json:"log_dir"`
	Sessions []sessionInfo `json:"sessions"`
}

// agentSessions is the agent_sessions tool.
func (s *Server) agentSessions(_ context.Context, _ *mcp.CallToolRequest, in sessionsInput) (*mcp.CallToolResult, any, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = defaultSessions
	}
	limit = min(limit, maxSessions)
	dir := s.config().LogDir
	running := s.running()
	list := sessionList{LogDir: dir, Sessions: []sessionInfo{}}
	for _, p := range sessionlog.List(dir) {
		if len(list.Sessions) == limit {
			break
		}
		t, err := sessionlog.Read(p, time.Hour)
		if err != nil {
			continue // Pruned, or renamed by its session id, since the listing.
		}
		list.Sessions = append(list.Sessions, sessionOf(t, running[p], time.Now()))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d sessions in %s, newest first:", len(list.Sessions), dir)
	for _, si := range list.Sessions {
		fmt.Fprintf(&b, "\n%s  %s  %s  %s  %s", cmp.Or(si.ID, "(no id)"), si.Start, si.Outcome,
			(time.Duration(si.DurationMS) * time.Millisecond).String(), si.LogPath)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: list}, nil, nil
}

// sessionOf summarizes one session log.
func sessionOf(t *sessionlog.Timeline, running bool, now time.Time) sessionInfo {
	si := sessionInfo{ID: t.SessionID, Start: t.Start.Format(time.RFC3339), LogPath: t.Path}
	end := now
	if !running {
		if fi, err := os.Stat(t.Path); err == nil {
			end = fi.ModTime()
		}
	}
	si.DurationMS = end.Sub(t.Start).Milliseconds()
	e := t.Exit
	if e != nil && !running {
		si.DurationMS = time.Duration(e.Duration).Milliseconds()
		si.ExitStatus = e.Status
	}
	switch {
	case running:
		si.Outcome = "running"
	case e == nil || e.Cause == "":
		// No exit record: a wrapper that was killed, or one still running
		// in another process.
		si.Outcome = "unfinished"
	case e.Cause == "hung" && t.Verdict != nil:
		si.Outcome = "hung (" + t.Verdict.Reason.Kind + ")"
	case e.Cause == "hung" || e.Cause == "cancelled" || e.Cause == "interrupted":
		si.Outcome = e.Cause
	case e.Status != nil && *e.Status == 0:
		si.Outcome = "ok"
	case e.Status != nil:
		si.Outcome = fmt.Sprintf("failed (status %d)", *e.Status)
	default:
		si.Outcome = e.Cause
	}
	return si
}
