package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"cursor-wrap/watchdog"
)

// TestValidateBounds: each bound is a value that passes and the next one
// past it that does not, named by its key.
func TestValidateBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key  string
		set  func(*Config)
		good bool
	}{
		{"tick_interval", func(c *Config) { c.TickInterval = 10 * time.Millisecond }, true},
		{"tick_interval", func(c *Config) { c.TickInterval = 10*time.Millisecond - 1 }, false},
		{"kill_grace", func(c *Config) { c.KillGrace = 0 }, true},
		{"kill_grace", func(c *Config) { c.KillGrace = -1 }, false},
		{"kill_grace", func(c *Config) { c.KillGrace = time.Minute }, true},
		{"kill_grace", func(c *Config) { c.KillGrace = time.Minute + 1 }, false},
		{"restarts", func(c *Config) { c.Restarts = 0 }, true},
		{"restarts", func(c *Config) { c.Restarts = -1 }, false},
		{"restarts", func(c *Config) { c.Restarts = 100 }, true},
		{"restarts", func(c *Config) { c.Restarts = 101 }, false},
		{"log_keep", func(c *Config) { c.LogKeep = 0 }, true},
		{"log_keep", func(c *Config) { c.LogKeep = -1 }, false},
		{"stdin_wait", func(c *Config) { c.StdinWait = 0 }, true},
		{"stdin_wait", func(c *Config) { c.StdinWait = -1 }, false},
		{"log_level", func(c *Config) { c.LogLevel = "debug" }, true},
		{"log_level", func(c *Config) { c.LogLevel = "error" }, true},
		{"log_level", func(c *Config) { c.LogLevel = "trace" }, false},
		{"log_dir", func(c *Config) { c.LogDir = "" }, false},
		{"agent", func(c *Config) { c.Agent = "" }, true},
		{"agent", func(c *Config) { c.Agent = "clade" }, false},
		{"mcp.min_idle_timeout", func(c *Config) { c.MCP.MinIdleTimeout = c.MCP.MaxIdleTimeout }, true},
		{"mcp.min_idle_timeout", func(c *Config) { c.MCP.MinIdleTimeout = c.MCP.MaxIdleTimeout + 1 }, false},
		{"mcp.min_idle_timeout", func(c *Config) { c.MCP.MinIdleTimeout = 0 }, false},
		{"mcp.min_hard_timeout", func(c *Config) { c.MCP.MinHardTimeout = c.MCP.MaxHardTimeout }, true},
		{"mcp.min_hard_timeout", func(c *Config) { c.MCP.MinHardTimeout = c.MCP.MaxHardTimeout + 1 }, false},
		{"mcp.min_hard_timeout", func(c *Config) { c.MCP.MinHardTimeout = 0 }, false},
		{"mcp.max_concurrent", func(c *Config) { c.MCP.MaxConcurrent = 1 }, true},
		{"mcp.max_concurrent", func(c *Config) { c.MCP.MaxConcurrent = 0 }, false},
		{"otel_flush_timeout", func(c *Config) { c.OTel.FlushTimeout = time.Minute }, true},
		{"otel_flush_timeout", func(c *Config) { c.OTel.FlushTimeout = time.Minute + 1 }, false},
		{"otel_flush_timeout", func(c *Config) { c.OTel.FlushTimeout = 0 }, false},
		{"otel_endpoint", func(c *Config) { c.OTel.Endpoint = "https://collector:4318" }, true},
		{"otel_endpoint", func(c *Config) { c.OTel.Endpoint = "http://" }, false},
		{"otel_endpoint", func(c *Config) { c.OTel.Endpoint = "ftp://collector" }, false},
		{"otel_headers", func(c *Config) { c.OTel.Headers = []string{"a=1"} }, true},
		{"otel_headers", func(c *Config) { c.OTel.Headers = []string{"a=1", " =2"} }, false},
		{"otel_headers", func(c *Config) { c.OTel.Headers = []string{"novalue"} }, false},
		{"notify_on", func(c *Config) { c.NotifyOn = []string{"hang"} }, true},
		{"notify_on", func(c *Config) { c.NotifyOn = []string{"hangs"} }, false},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		var bad *watchdog.InvalidError
		named := false
		for _, e := range unjoin(err) {
			if errors.As(e, &bad) && bad.Key == tc.key {
				named = true
			}
		}
		if named == tc.good {
			t.Errorf("%s: Validate() = %v, want it to pass: %v", tc.key, err, tc.good)
		}
	}
}

// TestDefaults: the defaults are valid, and are what `config --defaults`
// shows the user (its text is InitText).
func TestDefaults(t *testing.T) {
	t.Parallel()
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
	text := InitText()
	for _, line := range []string{
		`# tick_interval = "5s"`, `# kill_grace = "5s"`, `# restarts = 0`, `# restart_prompt = "continue"`,
		`# log_level = "info"`, `# log_keep = 200`, `# stdin_wait = "3s"`, `# otel_flush_timeout = "2s"`,
	} {
		if !strings.Contains(text, "\n"+line+"\n") {
			t.Errorf("the defaults' text has no line %s", line)
		}
	}
}
