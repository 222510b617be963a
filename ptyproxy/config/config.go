// Package config is the wrapper's configuration: the settings table, the
// TOML file, precedence (defaults, file, environment, flags), validation,
// what a reload changed, and the live value that follows the file through
// an fsnotify watch and tells its subscribers. It knows nothing of the
// runner: ptyproxy/job turns an Update into what a running attempt applies.
package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/notify"
	"cursor-wrap/watchdog"
)

// Config is the wrapper's whole configuration: the watchdog's thresholds
// and the settings around them. It is built from defaults, the config
// file, the environment and flags, in that order of precedence.
type Config struct {
	watchdog.Thresholds

	TickInterval   time.Duration
	KillGrace      time.Duration
	Restarts       int
	RestartPrompt  string
	LogDir         string
	LogLevel       string
	LogKeep        int
	Status         bool
	OnHang         string
	KeepOrphans    bool
	StdinWait      time.Duration
	Notify         []string // targets: "desktop" or a webhook URL
	NotifyOn       []string // events, of notify.Events
	FallbackModels []string // the models restarts move to, in turn
	Agent          string
	AgentBin       string
	MCP            MCPConfig
	OTel           OTelConfig

	sources map[string]Source
	envVars map[string]string // the variable each key FromEnv was read from
}

// MCPConfig is the [mcp] table: the MCP server's bounds on what a caller
// may ask for.
type MCPConfig struct {
	MinIdleTimeout time.Duration
	MaxIdleTimeout time.Duration
	MinHardTimeout time.Duration
	MaxHardTimeout time.Duration
	MaxConcurrent  int
}

// OTelConfig is where the wrapper sends OpenTelemetry traces and metrics
// (package telemetry): off while no endpoint is set.
type OTelConfig struct {
	Endpoint       string   // an OTLP/HTTP collector's base URL
	Headers        []string // "name=value", sent with each export: secrets
	CaptureContent bool     // prompts, tool commands and answers go out too
	FlushTimeout   time.Duration
}

// A Clamp reports a timeout a caller asked for, moved into the bounds the
// [mcp] table sets.
type Clamp struct {
	Name      string `json:"name"`
	Requested string `json:"requested"`
	Applied   string `json:"applied"`
	Bound     string `json:"bound"` // the config key that applied
	// FromConfig: the value was the config's default, not the caller's.
	FromConfig bool `json:"from_config,omitempty"`
}

// Source says where a setting's value came from.
type Source string

const (
	FromDefault Source = "default"
	FromFile    Source = "file"
	FromEnv     Source = "env"
	FromFlag    Source = "flag"
)

// A Setting is one key of the config file. Each top-level one also has a
// flag (--idle-timeout) and an environment variable
// (CURSOR_WRAP_IDLE_TIMEOUT).
type Setting struct {
	Key   string
	Doc   string
	field func(*Config) any // pointer to the Config field
}

// Flag returns the setting's command-line flag name, without dashes.
func (s Setting) Flag() string { return strings.ReplaceAll(s.Key, "_", "-") }

// Env returns the setting's environment variable.
func (s Setting) Env() string { return EnvPrefix + strings.ToUpper(s.Key) }

// standardEnv maps settings to the variables OpenTelemetry's SDKs read
// for them: such a variable beats the file and loses to the wrapper's own
// variable and flag.
var standardEnv = map[string]string{
	"otel_endpoint":        "OTEL_EXPORTER_OTLP_ENDPOINT",
	"otel_headers":         "OTEL_EXPORTER_OTLP_HEADERS",
	"otel_capture_content": "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
}

// EnvPrefix starts every environment variable of the wrapper.
const EnvPrefix = "CURSOR_WRAP_"

// IsBool reports whether the setting takes no value as a flag.
func (s Setting) IsBool() bool {
	_, ok := s.field(&Config{}).(*bool)
	return ok
}

// Settings lists every top-level setting in the order config --init
// documents them.
var Settings = []Setting{
	{"idle_timeout", "longest silence with no tool call running", func(c *Config) any { return &c.IdleTimeout }},
	{"tool_grace", "extra time a tool call gets past the timeout it declared", func(c *Config) any { return &c.ToolGrace }},
	{"tick_interval", "longest wait between two checks (deadlines are also timed exactly)", func(c *Config) any { return &c.TickInterval }},
	{"kill_grace", "from SIGTERM to SIGKILL (at most 1m)", func(c *Config) any { return &c.KillGrace }},
	{"exit_grace", "after the result, how long the agent may stay silent before it is stopped (still a success)", func(c *Config) any { return &c.ExitGrace }},
	{"hard_timeout", "cap on the time one attempt runs (a stop with Ctrl-Z not counted), 0 for none", func(c *Config) any { return &c.HardTimeout }},
	{"warn_before", "warn this long before a hang kill, 0 for never", func(c *Config) any { return &c.WarnBefore }},
	{"max_silence", "longest silence tolerated on activity evidence alone", func(c *Config) any { return &c.MaxSilence }},
	{"max_keepalive_wait", "longest silence that keep-alives alone excuse while the model is waited on (a thinking model and a parked turn look the same), at most max_silence; 0 for never", func(c *Config) any { return &c.MaxKeepAliveWait }},
	{"activity_probe", "read the agent's CPU time, its tools' bytes read, and its model connection as evidence of life", func(c *Config) any { return &c.ActivityProbe }},
	{"activity_cpu_floor", "CPU use, in cores, above which a silent agent counts as busy", func(c *Config) any { return &c.ActivityCPUFloor }},
	{"activity_read_floor", "bytes read per second by a tool above which a silent agent counts as busy", func(c *Config) any { return &c.ActivityReadFloor }},
	{"max_tokens", "stop the run once the agent reports more tokens of input, cache writes and output than this (cache reads do not count), 0 for none", func(c *Config) any { return &c.MaxTokens }},
	{"max_cost_usd", "stop the run once the cost the agent states passes this many US dollars, 0 for none", func(c *Config) any { return &c.MaxCostUSD }},
	{"restarts", "after a hang kill, run again with --resume up to this many times", func(c *Config) any { return &c.Restarts }},
	{"restart_prompt", "the prompt a resumed attempt gets", func(c *Config) any { return &c.RestartPrompt }},
	{"log_dir", "where session logs go", func(c *Config) any { return &c.LogDir }},
	{"log_level", "console level: debug, info, warn or error", func(c *Config) any { return &c.LogLevel }},
	{"log_keep", "session logs kept; older ones are removed at start (0 keeps all)", func(c *Config) any { return &c.LogKeep }},
	{"status", "draw a live status line on stderr when it is a terminal", func(c *Config) any { return &c.Status }},
	{"on_hang", "a command run through /bin/sh after a hang kill, with the hang record on its stdin", func(c *Config) any { return &c.OnHang }},
	{"keep_orphans", "leave running what the agent leaves behind when it exits by itself (servers started on purpose); they are stopped otherwise", func(c *Config) any { return &c.KeepOrphans }},
	{"stdin_wait", "with a prompt in the agent's args, how long a stdin pipe may give nothing before it is closed to the agent (0 waits for its end)", func(c *Config) any { return &c.StdinWait }},
	{"notify", "where to send notifications: desktop, or webhook URLs (Slack, Discord, Mattermost, ntfy); comma-separated as a flag or variable", func(c *Config) any { return &c.Notify }},
	{"notify_on", "the events that notify: " + strings.Join(notify.Names(notify.Events), ", "), func(c *Config) any { return &c.NotifyOn }},
	{"fallback_models", "models a restart after a hang or a rate limit moves to, in turn (--model); comma-separated as a flag or variable", func(c *Config) any { return &c.FallbackModels }},
	{"agent", "the agent's stream profile; empty picks it from the binary's name", func(c *Config) any { return &c.Agent }},
	{"agent_bin", "the real agent binary", func(c *Config) any { return &c.AgentBin }},
	{"otel_endpoint", "an OTLP/HTTP collector's base URL (http://collector:4318): traces and metrics of each run go there; none, none go", func(c *Config) any { return &c.OTel.Endpoint }},
	{"otel_headers", "headers sent with each export, name=value (an API key); comma-separated as a flag or variable; never shown", func(c *Config) any { return &c.OTel.Headers }},
	{"otel_capture_content", "send the prompt, tool commands and the answer (secrets masked) with the traces", func(c *Config) any { return &c.OTel.CaptureContent }},
	{"otel_flush_timeout", "longest wait at exit for traces and metrics still to be sent (at most 1m)", func(c *Config) any { return &c.OTel.FlushTimeout }},
}

// ToolTimeoutsKey is the table of per-kind budgets for tool calls that
// declare no timeout.
const ToolTimeoutsKey = "tool_timeouts"

// MCPKey is the table of the MCP server's settings.
const MCPKey = "mcp"

// MCPSettings are the keys of the [mcp] table. They have no flags.
var MCPSettings = []Setting{
	{"min_idle_timeout", "the shortest idle_timeout a caller may ask for", func(c *Config) any { return &c.MCP.MinIdleTimeout }},
	{"max_idle_timeout", "the longest idle_timeout a caller may ask for", func(c *Config) any { return &c.MCP.MaxIdleTimeout }},
	{"min_hard_timeout", "the shortest hard_timeout a caller may ask for", func(c *Config) any { return &c.MCP.MinHardTimeout }},
	{"max_hard_timeout", "the longest hard_timeout a caller may ask for (and the default when it asks for none)", func(c *Config) any { return &c.MCP.MaxHardTimeout }},
	{"max_concurrent", "agents run at once; further calls wait", func(c *Config) any { return &c.MCP.MaxConcurrent }},
}

func lookupIn(settings []Setting, key string) (Setting, bool) {
	i := slices.IndexFunc(settings, func(s Setting) bool { return s.Key == key })
	if i < 0 {
		return Setting{}, false
	}
	return settings[i], true
}

// Lookup returns the top-level setting for a key.
func Lookup(key string) (Setting, bool) { return lookupIn(Settings, key) }

// DefaultConfig returns the built-in configuration.
func DefaultConfig() Config {
	return Config{
		Thresholds:    watchdog.DefaultThresholds(),
		TickInterval:  5 * time.Second,
		KillGrace:     5 * time.Second,
		RestartPrompt: "continue",
		LogDir:        DefaultLogDir(),
		LogLevel:      "info",
		LogKeep:       200,
		StdinWait:     3 * time.Second,
		NotifyOn:      notify.Names(notify.Default),
		OTel:          OTelConfig{FlushTimeout: 2 * time.Second},
		MCP: MCPConfig{
			MinIdleTimeout: 10 * time.Second,
			MaxIdleTimeout: 30 * time.Minute,
			MinHardTimeout: time.Minute,
			MaxHardTimeout: 4 * time.Hour,
			MaxConcurrent:  4,
		},
	}
}

// Source returns where a key's value came from.
func (c *Config) Source(key string) Source {
	if s, ok := c.sources[key]; ok {
		return s
	}
	return FromDefault
}

// setting returns the setting of a key, the [mcp] table's as "mcp.KEY".
func setting(key string) (Setting, bool) {
	if sub, ok := strings.CutPrefix(key, MCPKey+"."); ok {
		return lookupIn(MCPSettings, sub)
	}
	return Lookup(key)
}

// Value returns a key's value as the config file would write it.
func (c *Config) Value(key string) string {
	if key == ToolTimeoutsKey {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(c.ToolTimeouts)) {
			parts = append(parts, k+" = "+strconv.Quote(c.ToolTimeouts[k].String()))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	s, ok := setting(key)
	if !ok {
		return ""
	}
	switch p := s.field(c).(type) {
	case *time.Duration:
		return p.String()
	case *bool:
		return strconv.FormatBool(*p)
	case *int:
		return strconv.Itoa(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *string:
		return *p
	case *[]string:
		return tomlList(*p)
	}
	return ""
}

// Shown is a key's value for the log and the console: webhook URLs hold
// their secret, so notify's show only their scheme and host, and
// otel_headers only their names.
func (c *Config) Shown(key string) string {
	switch key {
	case "notify":
		labels := make([]string, len(c.Notify))
		for i, t := range c.Notify {
			labels[i] = notify.Label(t)
		}
		return tomlList(labels)
	case "otel_headers":
		names := make([]string, len(c.OTel.Headers))
		for i, h := range c.OTel.Headers {
			name, _, _ := strings.Cut(h, "=")
			names[i] = name + "=[REDACTED]"
		}
		return tomlList(names)
	}
	return c.Value(key)
}

// tomlList writes a list as a TOML array of strings.
func tomlList(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// splitList reads a list given as text: comma-separated, spaces trimmed,
// empty items dropped.
func splitList(text string) []string {
	list := []string{}
	for _, item := range strings.Split(text, ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	return list
}

// set parses a value given as text (a flag or an environment variable).
// The error says what is wrong with the value; the caller says where the
// value was written.
func (c *Config) set(s Setting, text string, src Source) error {
	switch p := s.field(c).(type) {
	case *time.Duration:
		d, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf("%q is not a duration like 90s or 5m", text)
		}
		*p = d
	case *bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%q is not true or false", text)
		}
		*p = b
	case *int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", text)
		}
		*p = n
	case *float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", text)
		}
		*p = f
	case *string:
		*p = text
	case *[]string:
		*p = splitList(text)
	}
	c.mark(s.Key, src)
	return nil
}

func (c *Config) mark(key string, src Source) {
	if c.sources == nil {
		c.sources = map[string]Source{}
	}
	c.sources[key] = src
}

// setTOML sets a value decoded from the config file.
func (c *Config) setTOML(s Setting, v any) error {
	switch p := s.field(c).(type) {
	case *time.Duration:
		text, ok := v.(string)
		if !ok {
			return errors.New("want a duration in quotes, like \"90s\"")
		}
		return c.set(s, text, FromFile)
	case *bool:
		b, ok := v.(bool)
		if !ok {
			return errors.New("want true or false")
		}
		*p = b
	case *int:
		n, ok := v.(int64)
		if !ok {
			return errors.New("want a whole number")
		}
		*p = int(n)
	case *float64:
		switch n := v.(type) {
		case int64:
			*p = float64(n)
		case float64:
			*p = n
		default:
			return errors.New("want a number")
		}
	case *string:
		text, ok := v.(string)
		if !ok {
			return errors.New("want a string in quotes")
		}
		*p = text
	case *[]string:
		items, ok := v.([]any)
		list := make([]string, len(items))
		for i, item := range items {
			list[i], ok = item.(string)
			if !ok {
				break
			}
		}
		if !ok {
			return errors.New(`want an array of strings, like ["desktop"]`)
		}
		*p = list
	}
	c.mark(s.Key, FromFile)
	return nil
}

// Keys lists every key, the [mcp] table's as "mcp.KEY".
func Keys() []string {
	out := append(settingKeys(Settings), ToolTimeoutsKey)
	for _, s := range MCPSettings {
		out = append(out, MCPKey+"."+s.Key)
	}
	return out
}
