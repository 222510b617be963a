package watchdog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the wrapper's whole configuration: the watchdog's thresholds
// and the settings around them. It is built from defaults, the config
// file, the environment and flags, in that order of precedence.
type Config struct {
	IdleTimeout       time.Duration
	ToolGrace         time.Duration
	TickInterval      time.Duration
	KillGrace         time.Duration
	ExitGrace         time.Duration
	HardTimeout       time.Duration
	WarnBefore        time.Duration
	MaxSilence        time.Duration
	ActivityProbe     bool
	ActivityCPUFloor  float64
	ActivityReadFloor float64
	Restarts          int
	RestartPrompt     string
	LogDir            string
	LogLevel          string
	LogKeep           int
	Status            bool
	OnHang            string
	Agent             string
	AgentBin          string
	ToolTimeouts      map[string]time.Duration
	MCP               MCPConfig

	sources map[string]Source
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

// Source says where a setting's value came from.
type Source string

const (
	FromDefault Source = "default"
	FromFile    Source = "file"
	FromEnv     Source = "env"
	FromFlag    Source = "flag"
)

// A Setting is one key of the config file. Each also has a flag
// (--idle-timeout) and an environment variable (CURSOR_WRAP_IDLE_TIMEOUT).
type Setting struct {
	Key   string
	Doc   string
	field func(*Config) any // pointer to the Config field
}

// Flag returns the setting's command-line flag name, without dashes.
func (s Setting) Flag() string { return strings.ReplaceAll(s.Key, "_", "-") }

// Env returns the setting's environment variable.
func (s Setting) Env() string { return EnvPrefix + strings.ToUpper(s.Key) }

// EnvPrefix starts every environment variable of the wrapper.
const EnvPrefix = "CURSOR_WRAP_"

// IsBool reports whether the setting takes no value as a flag.
func (s Setting) IsBool() bool {
	_, ok := s.field(&Config{}).(*bool)
	return ok
}

// Settings lists every setting in the order config --init documents them.
var Settings = []Setting{
	{"idle_timeout", "longest silence with no tool call running", func(c *Config) any { return &c.IdleTimeout }},
	{"tool_grace", "extra time a tool call gets past the timeout it declared", func(c *Config) any { return &c.ToolGrace }},
	{"tick_interval", "longest wait between two checks (deadlines are also timed exactly)", func(c *Config) any { return &c.TickInterval }},
	{"kill_grace", "from SIGTERM to SIGKILL (at most 1m)", func(c *Config) any { return &c.KillGrace }},
	{"exit_grace", "after the result, how long the agent may stay silent before it is stopped (still a success)", func(c *Config) any { return &c.ExitGrace }},
	{"hard_timeout", "wall-clock cap on one attempt, 0 for none", func(c *Config) any { return &c.HardTimeout }},
	{"warn_before", "warn this long before a hang kill, 0 for never", func(c *Config) any { return &c.WarnBefore }},
	{"max_silence", "longest silence tolerated on activity evidence alone", func(c *Config) any { return &c.MaxSilence }},
	{"activity_probe", "read the agent's CPU time and bytes read from /proc as evidence of life", func(c *Config) any { return &c.ActivityProbe }},
	{"activity_cpu_floor", "CPU use, in cores, above which a silent agent counts as busy", func(c *Config) any { return &c.ActivityCPUFloor }},
	{"activity_read_floor", "bytes read per second above which a silent agent counts as busy", func(c *Config) any { return &c.ActivityReadFloor }},
	{"restarts", "after a hang kill, run again with --resume up to this many times", func(c *Config) any { return &c.Restarts }},
	{"restart_prompt", "the prompt a resumed attempt gets", func(c *Config) any { return &c.RestartPrompt }},
	{"log_dir", "where session logs go", func(c *Config) any { return &c.LogDir }},
	{"log_level", "console level: debug, info, warn or error", func(c *Config) any { return &c.LogLevel }},
	{"log_keep", "session logs kept; older ones are removed at start (0 keeps all)", func(c *Config) any { return &c.LogKeep }},
	{"status", "draw a live status line on stderr when it is a terminal", func(c *Config) any { return &c.Status }},
	{"on_hang", "a command run through /bin/sh after a hang kill, with the hang record on its stdin", func(c *Config) any { return &c.OnHang }},
	{"agent", "the agent's stream profile; empty picks it from the binary's name", func(c *Config) any { return &c.Agent }},
	{"agent_bin", "the real agent binary", func(c *Config) any { return &c.AgentBin }},
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

func lookupMCP(key string) (Setting, bool) {
	i := slices.IndexFunc(MCPSettings, func(s Setting) bool { return s.Key == key })
	if i < 0 {
		return Setting{}, false
	}
	return MCPSettings[i], true
}

// Lookup returns the setting for a key.
func Lookup(key string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.Key == key })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// DefaultConfig returns the built-in configuration.
func DefaultConfig() Config {
	th := DefaultThresholds()
	home, _ := os.UserHomeDir()
	return Config{
		IdleTimeout:       th.IdleTimeout,
		ToolGrace:         th.ToolGrace,
		TickInterval:      5 * time.Second,
		KillGrace:         5 * time.Second,
		ExitGrace:         th.ExitGrace,
		MaxSilence:        th.MaxSilence,
		ActivityProbe:     th.ActivityProbe,
		ActivityCPUFloor:  th.ActivityCPUFloor,
		ActivityReadFloor: th.ActivityReadFloor,
		RestartPrompt:     "continue",
		LogDir:            filepath.Join(home, ".cursor-wrap", "logs"),
		LogLevel:          "info",
		LogKeep:           200,
		ToolTimeouts:      map[string]time.Duration{},
		MCP: MCPConfig{
			MinIdleTimeout: 10 * time.Second,
			MaxIdleTimeout: 30 * time.Minute,
			MinHardTimeout: time.Minute,
			MaxHardTimeout: 4 * time.Hour,
			MaxConcurrent:  4,
		},
	}
}

// Thresholds returns the watchdog's part of the configuration.
func (c *Config) Thresholds() Thresholds {
	return Thresholds{
		IdleTimeout:       c.IdleTimeout,
		ToolGrace:         c.ToolGrace,
		HardTimeout:       c.HardTimeout,
		WarnBefore:        c.WarnBefore,
		ExitGrace:         c.ExitGrace,
		MaxSilence:        c.MaxSilence,
		ToolTimeouts:      maps.Clone(c.ToolTimeouts),
		ActivityProbe:     c.ActivityProbe,
		ActivityCPUFloor:  c.ActivityCPUFloor,
		ActivityReadFloor: c.ActivityReadFloor,
	}
}

// Source returns where a key's value came from.
func (c *Config) Source(key string) Source {
	if s, ok := c.sources[key]; ok {
		return s
	}
	return FromDefault
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
	s, ok := Lookup(key)
	if sub, isMCP := strings.CutPrefix(key, MCPKey+"."); isMCP {
		s, ok = lookupMCP(sub)
	}
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
	}
	return ""
}

// set parses a value given as text (a flag or an environment variable).
func (c *Config) set(s Setting, text string, src Source) error {
	switch p := s.field(c).(type) {
	case *time.Duration:
		d, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf("%s: %q is not a duration like 90s or 5m", s.Key, text)
		}
		*p = d
	case *bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%s: %q is not true or false", s.Key, text)
		}
		*p = b
	case *int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return fmt.Errorf("%s: %q is not a whole number", s.Key, text)
		}
		*p = n
	case *float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", s.Key, text)
		}
		*p = f
	case *string:
		*p = text
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
			return fmt.Errorf("%s: want a duration in quotes, like \"90s\"", s.Key)
		}
		return c.set(s, text, FromFile)
	case *bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s: want true or false", s.Key)
		}
		*p = b
	case *int:
		n, ok := v.(int64)
		if !ok {
			return fmt.Errorf("%s: want a whole number", s.Key)
		}
		*p = int(n)
	case *float64:
		switch n := v.(type) {
		case int64:
			*p = float64(n)
		case float64:
			*p = n
		default:
			return fmt.Errorf("%s: want a number", s.Key)
		}
	case *string:
		text, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: want a string in quotes", s.Key)
		}
		*p = text
	}
	c.mark(s.Key, FromFile)
	return nil
}

// Validate checks the values make sense together.
func (c *Config) Validate() error {
	var errs []error
	for _, s := range Settings {
		if d, ok := s.field(c).(*time.Duration); ok && *d < 0 {
			errs = append(errs, fmt.Errorf("%s: %v is negative", s.Key, *d))
		}
	}
	for kind, d := range c.ToolTimeouts {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s.%s: %v is not positive", ToolTimeoutsKey, kind, d))
		}
	}
	positive := func(key string, d time.Duration) {
		if d == 0 {
			errs = append(errs, fmt.Errorf("%s: must be more than 0", key))
		}
	}
	positive("idle_timeout", c.IdleTimeout)
	positive("tick_interval", c.TickInterval)
	if c.KillGrace > time.Minute {
		errs = append(errs, fmt.Errorf("kill_grace: %v is more than 1m", c.KillGrace))
	}
	if c.ActivityCPUFloor < 0 || c.ActivityReadFloor < 0 {
		errs = append(errs, errors.New("activity_cpu_floor and activity_read_floor: must not be negative"))
	}
	if c.Restarts < 0 || c.Restarts > 100 {
		errs = append(errs, fmt.Errorf("restarts: %d is not between 0 and 100", c.Restarts))
	}
	if c.LogKeep < 0 {
		errs = append(errs, fmt.Errorf("log_keep: %d is negative", c.LogKeep))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log_level: %q is not debug, info, warn or error", c.LogLevel))
	}
	if c.LogDir == "" {
		errs = append(errs, errors.New("log_dir: must not be empty"))
	}
	m := c.MCP
	if m.MinIdleTimeout <= 0 || m.MinIdleTimeout > m.MaxIdleTimeout || m.MinHardTimeout <= 0 || m.MinHardTimeout > m.MaxHardTimeout {
		errs = append(errs, errors.New("[mcp]: each minimum must be positive and no more than its maximum"))
	}
	if m.MaxConcurrent < 1 {
		errs = append(errs, fmt.Errorf("[mcp] max_concurrent: %d is less than 1", m.MaxConcurrent))
	}
	return errors.Join(errs...)
}

// File is the content of a config file, parsed but not yet applied.
type File struct {
	Path   string
	Exists bool
	text   []byte
	values map[string]any
	tools  map[string]any
	mcp    map[string]any
}

// ErrConfig wraps every problem with the configuration.
var ErrConfig = errors.New("config")

// ReadFile reads and parses a config file. A missing file is no error: it
// has no values. Unknown keys are errors that name the key and its line,
// so a typo never silently does nothing.
func ReadFile(path string) (File, error) {
	f := File{Path: path}
	text, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	f.Exists, f.text = true, text
	var raw map[string]any
	if _, err := toml.Decode(string(text), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return f, fmt.Errorf("%w: %s:%d: %s", ErrConfig, path, pe.Position.Line, pe.Message)
		}
		return f, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	f.values = map[string]any{}
	for key, v := range raw {
		switch {
		case key == ToolTimeoutsKey || key == MCPKey:
			t, ok := v.(map[string]any)
			if !ok {
				return f, fmt.Errorf("%w: %s:%d: %s must be a table like [%s]", ErrConfig, path, lineOf(text, "", key), key, key)
			}
			if key == ToolTimeoutsKey {
				f.tools = t
				continue
			}
			for sub := range t {
				if _, ok := lookupMCP(sub); !ok {
					return f, fmt.Errorf("%w: %s:%d: unknown key %q in [%s]", ErrConfig, path, lineOf(text, MCPKey, sub), sub, MCPKey)
				}
			}
			f.mcp = t
		default:
			if _, ok := Lookup(key); !ok {
				return f, fmt.Errorf("%w: %s:%d: unknown key %q", ErrConfig, path, lineOf(text, "", key), key)
			}
			f.values[key] = v
		}
	}
	return f, nil
}

// lineOf finds the line that sets key in table ("" for the top level), for
// error messages: the TOML decoder does not report key positions.
func lineOf(text []byte, table, key string) int {
	current := ""
	header := regexp.MustCompile(`^\s*\[\s*([^\]\s]+)\s*\]`)
	assign := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		if m := header.FindSubmatch(sc.Bytes()); m != nil {
			current = string(m[1])
			if current == key && table == "" {
				return n
			}
			continue
		}
		if current == table && assign.Match(sc.Bytes()) {
			return n
		}
	}
	return 0
}

// Build makes the configuration from its layers: defaults, the file, the
// environment, then flags. flags and env map keys to their text. A key set
// by env or a flag is pinned: the file cannot change it.
func Build(file File, env []string, flags map[string]string) (Config, error) {
	c := DefaultConfig()
	text := file.text
	for _, key := range slices.Sorted(maps.Keys(file.values)) {
		s, _ := Lookup(key)
		if err := c.setTOML(s, file.values[key]); err != nil {
			return c, fmt.Errorf("%w: %s:%d: %w", ErrConfig, file.Path, lineOf(text, "", key), err)
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(file.tools)) {
		v, ok := file.tools[kind].(string)
		d, err := time.ParseDuration(v)
		if !ok || err != nil {
			return c, fmt.Errorf("%w: %s:%d: %s.%s: want a duration in quotes, like \"20m\"", ErrConfig, file.Path, lineOf(text, ToolTimeoutsKey, kind), ToolTimeoutsKey, kind)
		}
		c.ToolTimeouts[kind] = d
		c.mark(ToolTimeoutsKey, FromFile)
	}
	for _, key := range slices.Sorted(maps.Keys(file.mcp)) {
		s, _ := lookupMCP(key)
		if err := c.setTOML(s, file.mcp[key]); err != nil {
			return c, fmt.Errorf("%w: %s:%d: [%s] %w", ErrConfig, file.Path, lineOf(text, MCPKey, key), MCPKey, err)
		}
		c.mark(MCPKey+"."+key, FromFile)
	}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		s, ok := Lookup(strings.ToLower(strings.TrimPrefix(name, EnvPrefix)))
		if !ok {
			continue
		}
		if err := c.set(s, value, FromEnv); err != nil {
			return c, fmt.Errorf("%w: $%s: %w", ErrConfig, name, err)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(flags)) {
		s, ok := Lookup(key)
		if !ok {
			return c, fmt.Errorf("%w: unknown setting %q", ErrConfig, key)
		}
		if err := c.set(s, flags[key], FromFlag); err != nil {
			return c, fmt.Errorf("%w: --%s: %w", ErrConfig, s.Flag(), err)
		}
	}
	if rest, ok := strings.CutPrefix(c.LogDir, "~/"); ok {
		home, _ := os.UserHomeDir()
		c.LogDir = filepath.Join(home, rest)
	}
	if err := c.Validate(); err != nil {
		where := "configuration"
		if file.Exists {
			where = file.Path
		}
		return c, fmt.Errorf("%w: %s: %w", ErrConfig, where, err)
	}
	return c, nil
}

// A Change is one key whose value a reload changed.
type Change struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Diff lists the keys whose values differ between two configurations, and
// the keys the file tried to change but a flag or the environment pins.
func Diff(old, new Config, file File) (changes []Change, pinned []string) {
	for _, key := range Keys() {
		if o, n := old.Value(key), new.Value(key); o != n {
			changes = append(changes, Change{key, o, n})
		}
		if src := new.Source(key); src == FromEnv || src == FromFlag {
			if _, inFile := file.values[key]; inFile {
				pinned = append(pinned, key+" ("+string(src)+")")
			}
		}
	}
	return changes, pinned
}

// Keys lists every key, the [mcp] table's as "mcp.KEY".
func Keys() []string {
	out := make([]string, 0, len(Settings)+1+len(MCPSettings))
	for _, s := range Settings {
		out = append(out, s.Key)
	}
	out = append(out, ToolTimeoutsKey)
	for _, s := range MCPSettings {
		out = append(out, MCPKey+"."+s.Key)
	}
	return out
}

// DefaultPath returns where the config file is looked for: $CURSOR_WRAP_CONFIG,
// else $XDG_CONFIG_HOME/cursor-wrap/config.toml, else ~/.config/….
func DefaultPath(getenv func(string) string) string {
	if p := getenv(EnvPrefix + "CONFIG"); p != "" {
		return p
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "cursor-wrap", "config.toml")
}

// InitText is a commented config file with every key at its default, for
// `cursor-wrap config --init`.
func InitText() string {
	var b strings.Builder
	b.WriteString("# cursor-wrap configuration. Running wrappers reload this file when it\n")
	b.WriteString("# changes. Durations use Go syntax (90s, 5m, 1h30m). Each key can also be\n")
	b.WriteString("# set by a flag (--idle-timeout) or the environment (CURSOR_WRAP_IDLE_TIMEOUT),\n")
	b.WriteString("# which take precedence and are not changed by a reload.\n\n")
	c := DefaultConfig()
	for _, s := range Settings {
		fmt.Fprintf(&b, "# %s\n", s.Doc)
		v := c.Value(s.Key)
		switch s.field(&c).(type) {
		case *time.Duration, *string:
			v = strconv.Quote(v)
		}
		if s.Key == "log_dir" {
			v = strconv.Quote("~/.cursor-wrap/logs")
			fmt.Fprintf(&b, "# %s = %s\n\n", s.Key, v)
			continue
		}
		fmt.Fprintf(&b, "%s = %s\n\n", s.Key, v)
	}
	b.WriteString("# Budgets for tool calls that declare no timeout, by tool kind; a kind not\n")
	b.WriteString("# listed gets idle_timeout.\n[" + ToolTimeoutsKey + "]\n")
	b.WriteString("# shellToolCall = \"20m\"\n# mcpToolCall = \"10m\"\n\n")
	b.WriteString("# The MCP server (cursor-wrap mcp): bounds on what a caller may ask for.\n[" + MCPKey + "]\n")
	for _, s := range MCPSettings {
		v := c.Value(MCPKey + "." + s.Key)
		if _, isDur := s.field(&c).(*time.Duration); isDur {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, "# %s\n%s = %s\n", s.Doc, s.Key, v)
	}
	return b.String()
}

// Load reads the config file at path (or DefaultPath's, for "") and builds
// the configuration over it with the environment and the settings given
// as flags. It returns the path it read.
func Load(path string, flags map[string]string) (Config, File, string, error) {
	if path == "" {
		path = DefaultPath(os.Getenv)
	}
	file, err := ReadFile(path)
	if err != nil {
		return Config{}, file, path, err
	}
	cfg, err := Build(file, os.Environ(), flags)
	return cfg, file, path, err
}

// Reload builds the configuration anew after its file changed. Invalid,
// the error says why (the caller keeps old); unchanged, changes and pinned
// are empty.
func Reload(old Config, path string, flags map[string]string) (Config, []Change, []string, error) {
	cfg, file, _, err := Load(path, flags)
	if err != nil {
		return old, nil, nil, err
	}
	changes, pinned := Diff(old, cfg, file)
	if len(changes) == 0 && len(pinned) == 0 {
		return old, nil, nil, nil
	}
	return cfg, changes, pinned, nil
}

// Summary says what a reload changed, for one console line.
func Summary(changes []Change, pinned []string) string {
	var words []string
	for _, c := range changes {
		words = append(words, c.Key+" "+c.Old+" → "+c.New)
	}
	for _, p := range pinned {
		words = append(words, p+" pinned, unchanged")
	}
	return strings.Join(words, ", ")
}
