package job

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/stream"
)

// agentsOnPath puts executables named like the agents' commands in a
// fresh directory and makes it the whole PATH.
func agentsOnPath(t *testing.T, names ...string) string {
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

func TestResolve(t *testing.T) {
	dir := agentsOnPath(t, "cursor-agent", "claude", "gemini")
	ws := t.TempDir()
	t.Chdir(filepath.Dir(ws))
	cfg := config.DefaultConfig()
	for _, tc := range []struct {
		name     string
		req      Request
		wantPath string
		wantArgs []string
		wantMode stream.Mode
		wantDir  string
	}{
		{"direct adds the headless flags", Request{Args: []string{"hi"}}, "cursor-agent",
			[]string{"--print", "--output-format", "stream-json", "--force", "--model", "auto", "hi"}, stream.Events, ""},
		{"no force", Request{Args: []string{"hi"}, NoForce: true}, "cursor-agent",
			[]string{"--print", "--output-format", "stream-json", "--model", "auto", "hi"}, stream.Events, ""},
		{"relative workspace made absolute, and the directory", Request{Args: []string{"hi"}, Workspace: filepath.Base(ws)}, "cursor-agent",
			[]string{"--print", "--output-format", "stream-json", "--force", "--model", "auto", "--workspace", ws, "hi"}, stream.Events, ws},
		{"alias adds nothing", Request{Args: []string{"-p", "hi"}, Alias: true}, "cursor-agent",
			[]string{"-p", "hi"}, stream.Bytes, ""},
		{"alias interactive", Request{Args: []string{"login"}, Alias: true}, "cursor-agent",
			[]string{"login"}, stream.Interactive, ""},
		{"another agent by name keeps its own model", Request{Prompt: "hi", Agent: "claude"}, "claude",
			[]string{"--print", "--output-format", "stream-json", "--verbose", "--", "hi"}, stream.Events, ""},
		{"a prompt that looks like a flag", Request{Prompt: "--workspace=/"}, "cursor-agent",
			[]string{"--print", "--output-format", "stream-json", "--force", "--model", "auto", "--", "--workspace=/"}, stream.Events, ""},
		{"gemini: a prompt joined to its flag", Request{Prompt: "--resume=X", Agent: "gemini"}, "gemini",
			[]string{"--prompt=--resume=X", "--output-format", "stream-json"}, stream.Events, ""},
		{"resume", Request{Prompt: "go on", Resume: "s-1"}, "cursor-agent",
			[]string{"--print", "--output-format", "stream-json", "--force", "--model", "auto", "--resume", "s-1", "--", "go on"}, stream.Events, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Resolve(cfg, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if c.Path != filepath.Join(dir, tc.wantPath) || !slices.Equal(c.Args, tc.wantArgs) || c.Mode != tc.wantMode || c.Dir != tc.wantDir {
				t.Errorf("got %s %q mode %v dir %q", c.Path, c.Args, c.Mode, c.Dir)
			}
			if (c.Parse() != nil) != (c.Mode == stream.Events) || c.Direct == tc.req.Alias {
				t.Errorf("parse %v direct %v", c.Parse() != nil, c.Direct)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	agentsOnPath(t, "cursor-agent", "gemini")
	cfg := config.DefaultConfig()
	for _, tc := range []struct {
		name    string
		cfg     func(*config.Config)
		req     Request
		invalid bool
		status  int
	}{
		{"unknown configured agent", func(c *config.Config) { c.Agent = "bogus" }, Request{}, true, ExitWrapper},
		{"unknown agent asked for", nil, Request{Prompt: "x", Agent: "bogus"}, true, ExitWrapper},
		{"agent not on PATH", nil, Request{Prompt: "x", Agent: "codex"}, false, ExitNotFound},
		{"gemini cannot resume by id", nil, Request{Prompt: "x", Agent: "gemini", Resume: "s"}, true, ExitWrapper},
		{"missing agent_bin", func(c *config.Config) { c.AgentBin = "/nonexistent/agent" }, Request{}, false, ExitNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.cfg != nil {
				tc.cfg(&c)
			}
			_, err := Resolve(c, tc.req)
			if err == nil || errors.Is(err, ErrInvalid) != tc.invalid || StartStatus(err) != tc.status {
				t.Errorf("error %v: invalid %v, status %d", err, errors.Is(err, ErrInvalid), StartStatus(err))
			}
		})
	}
}
