package config

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"cursor-wrap/watchdog"
)

// File is the content of a config file, parsed but not yet applied.
type File struct {
	Path   string
	Exists bool
	text   []byte
	values map[string]any
	tools  map[string]any
	mcp    map[string]any
}

// ErrConfig is matched (errors.Is) by every problem with the
// configuration.
var ErrConfig = errors.New("config")

// A SettingError is one bad value, named where the user wrote it: a flag
// (--idle-timeout), an environment variable ($CURSOR_WRAP_IDLE_TIMEOUT) or
// a line of the config file (path:3: idle_timeout).
type SettingError struct {
	Where   string
	Problem string
}

func (e *SettingError) Error() string        { return e.Where + ": " + e.Problem }
func (e *SettingError) Is(target error) bool { return target == ErrConfig }

// maxConfigSize bounds what is read of a config file: a real one is a few
// kilobytes, and a path to a device must not fill memory.
const maxConfigSize = 1 << 20

// ReadFile reads and parses a config file. A missing file is no error: it
// has no values. Only a regular file is read, and at most maxConfigSize of
// it. Unknown keys are errors that name the key and its line, so a typo
// never silently does nothing.
func ReadFile(path string) (File, error) {
	f := File{Path: path}
	text, err := readRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, &SettingError{path, err.Error()}
	}
	f.Exists, f.text = true, text
	if line, problem := checkShape(text); line > 0 {
		return f, &SettingError{fmt.Sprintf("%s:%d", path, line), problem}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(text), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return f, &SettingError{fmt.Sprintf("%s:%d", path, pe.Position.Line), pe.Message}
		}
		return f, &SettingError{path, err.Error()}
	}
	f.values = map[string]any{}
	// In the file's order, so that of several wrong keys the first is named,
	// every time.
	for _, key := range inFileOrder(text, "", maps.Keys(raw)) {
		v := raw[key]
		switch {
		case key == ToolTimeoutsKey || key == MCPKey:
			t, ok := v.(map[string]any)
			if !ok {
				return f, &SettingError{fmt.Sprintf("%s:%d", path, lineOf(text, "", key)), fmt.Sprintf("%s must be a table like [%s]", key, key)}
			}
			if key == ToolTimeoutsKey {
				f.tools = t
				continue
			}
			for _, sub := range inFileOrder(text, MCPKey, maps.Keys(t)) {
				if _, ok := lookupIn(MCPSettings, sub); !ok {
					return f, &SettingError{fmt.Sprintf("%s:%d", path, lineOf(text, MCPKey, sub)), fmt.Sprintf("unknown key %q in [%s]%s", sub, MCPKey, didYouMean(sub, settingKeys(MCPSettings)))}
				}
			}
			f.mcp = t
		default:
			if _, ok := Lookup(key); !ok {
				return f, &SettingError{fmt.Sprintf("%s:%d", path, lineOf(text, "", key)), fmt.Sprintf("unknown key %q%s", key, didYouMean(key, settingKeys(Settings)))}
			}
			f.values[key] = v
		}
	}
	return f, nil
}

// readRegular reads a regular file of at most maxConfigSize bytes. It
// opens without blocking, so a FIFO at the path cannot stall the start.
func readRegular(path string) ([]byte, error) {
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	text, err := io.ReadAll(io.LimitReader(file, maxConfigSize+1))
	if err != nil {
		return nil, err
	}
	if len(text) > maxConfigSize {
		return nil, fmt.Errorf("larger than %d KiB: not a config file", maxConfigSize>>10)
	}
	return text, nil
}

func settingKeys(settings []Setting) []string {
	keys := make([]string, len(settings))
	for i, s := range settings {
		keys[i] = s.Key
	}
	return keys
}

func didYouMean(word string, known []string) string {
	if s := Suggest(word, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
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
// environment, then flags. flags maps keys to their text. A key set by env
// or a flag is pinned: the file cannot change it. Each error names the
// value where the user wrote it.
func Build(file File, env []string, flags map[string]string) (Config, error) {
	c := DefaultConfig()
	at := func(table, key string) string { return fmt.Sprintf("%s:%d", file.Path, lineOf(file.text, table, key)) }
	for _, key := range slices.Sorted(maps.Keys(file.values)) {
		s, _ := Lookup(key)
		if err := c.setTOML(s, file.values[key]); err != nil {
			return c, &SettingError{at("", key) + ": " + key, err.Error()}
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(file.tools)) {
		v, ok := file.tools[kind].(string)
		d, err := time.ParseDuration(v)
		if !ok || err != nil {
			return c, &SettingError{at(ToolTimeoutsKey, kind) + ": " + ToolTimeoutsKey + "." + kind, "want a duration in quotes, like \"20m\""}
		}
		if c.ToolTimeouts == nil {
			c.ToolTimeouts = map[string]time.Duration{}
		}
		c.ToolTimeouts[kind] = d
		c.mark(ToolTimeoutsKey, FromFile)
	}
	for _, key := range slices.Sorted(maps.Keys(file.mcp)) {
		s, _ := lookupIn(MCPSettings, key)
		if err := c.setTOML(s, file.mcp[key]); err != nil {
			return c, &SettingError{at(MCPKey, key) + ": [" + MCPKey + "] " + key, err.Error()}
		}
		c.mark(MCPKey+"."+key, FromFile)
	}
	envText := map[string]string{}
	c.envVars = map[string]string{}
	// OpenTelemetry's standard variables first: the wrapper's own beat them.
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		s, standard := standardSetting(name)
		if !ok || !standard {
			continue
		}
		if err := c.set(s, standardValue(s.Key, value), FromEnv); err != nil {
			return c, &SettingError{"$" + name, err.Error()}
		}
		envText[s.Key], c.envVars[s.Key] = value, name
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
			return c, &SettingError{"$" + name, err.Error()}
		}
		envText[s.Key], c.envVars[s.Key] = value, name
	}
	for _, key := range slices.Sorted(maps.Keys(flags)) {
		s, ok := Lookup(key)
		if !ok {
			return c, &SettingError{"--" + strings.ReplaceAll(key, "_", "-"), "not a setting"}
		}
		if err := c.set(s, flags[key], FromFlag); err != nil {
			return c, &SettingError{"--" + s.Flag(), err.Error()}
		}
	}
	if err := c.resolveLogDir(Home); err != nil {
		return c, err
	}
	err := c.Validate()
	if err == nil {
		return c, nil
	}
	// Name each bad value where it was written.
	var named []error
	for _, e := range unjoin(err) {
		var inv *watchdog.InvalidError
		if !errors.As(e, &inv) {
			named = append(named, e)
			continue
		}
		where := inv.Key
		src := c.Source(inv.Key)
		if strings.HasPrefix(inv.Key, ToolTimeoutsKey+".") {
			src = c.Source(ToolTimeoutsKey)
		}
		// Only top-level keys have a flag and a variable.
		s, _ := Lookup(inv.Key)
		switch src {
		case FromFlag:
			where = "--" + s.Flag() + " " + flags[inv.Key]
		case FromEnv:
			where = "$" + c.envVars[inv.Key] + "=" + envText[inv.Key]
		case FromFile:
			table, key := "", inv.Key
			if t, k, ok := strings.Cut(inv.Key, "."); ok {
				table, key = t, k
			}
			where = at(table, key) + ": " + inv.Key
		}
		named = append(named, &SettingError{where, inv.Problem})
	}
	return c, errors.Join(named...)
}

// standardSetting returns the setting whose standard variable is name.
func standardSetting(name string) (Setting, bool) {
	for key, std := range standardEnv {
		if std == name {
			return Lookup(key)
		}
	}
	return Setting{}, false
}

// standardValue is the value of a setting's standard variable as the
// setting reads it: the content-capture switch of OpenTelemetry's
// generative-AI instrumentations also takes where the content goes, and
// every place but none means some.
func standardValue(key, value string) string {
	if key != "otel_capture_content" {
		return value
	}
	switch strings.ToLower(value) {
	case "span_only", "event_only", "span_and_event":
		return "true"
	case "no_content", "":
		return "false"
	}
	return value
}

// unjoin flattens errors.Join trees.
func unjoin(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, unjoin(e)...)
	}
	return out
}

// resolveLogDir expands a log_dir under "~/" and refuses a default one
// that has no home to be under; home is Home, but in tests.
func (c *Config) resolveLogDir(home func() (string, error)) error {
	where := "log_dir"
	switch c.Source("log_dir") {
	case FromFlag:
		where = "--log-dir"
	case FromEnv:
		where = "$" + EnvPrefix + "LOG_DIR"
	}
	rest, tilde := strings.CutPrefix(c.LogDir, "~/")
	if !tilde && c.LogDir != "" {
		return nil
	}
	dir, err := home()
	if err != nil {
		return &SettingError{where, "no home directory for the session logs: " + err.Error()}
	}
	if tilde {
		c.LogDir = filepath.Join(dir, rest)
	}
	return nil
}

// DefaultPath returns where the config file is looked for: $CURSOR_WRAP_CONFIG,
// else $XDG_CONFIG_HOME/cursor-wrap/config.toml (a relative one is ignored,
// as the XDG spec says), else ~/.config/…. With no home directory (see
// Home) it is an error, never a path relative to the working directory.
func DefaultPath(getenv func(string) string) (string, error) {
	if p := getenv(EnvPrefix + "CONFIG"); p != "" {
		return p, nil
	}
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, err := homeOf(getenv, user.Current)
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "cursor-wrap", "config.toml"), nil
}

// InitText is the file `cursor-wrap config --init` writes: every key
// documented, at its default, and commented out, so that the file sets
// nothing until the user uncomments a line (config reports each key as a
// default, and a default changed by a later version applies). The tables
// come last, their headers commented out too, so a top-level key added at
// the end does not land in a table.
func InitText() string {
	var b strings.Builder
	b.WriteString(`# cursor-wrap configuration. Running wrappers reload this file when it
# changes. Durations use Go syntax (90s, 5m, 1h30m). Each key can also be
# set by a flag (--idle-timeout) or the environment (CURSOR_WRAP_IDLE_TIMEOUT),
# which take precedence and are not changed by a reload.
#
# Every setting is commented out and shows its default: a key left commented
# follows the default, this version's and a later one's. To set a key,
# remove the "# " before it and change the value.

`)
	c := DefaultConfig()
	for _, s := range Settings {
		v := c.Value(s.Key)
		switch s.field(&c).(type) {
		case *time.Duration, *string:
			v = strconv.Quote(v)
		}
		if s.Key == "log_dir" {
			b.WriteString("# where session logs go (they hold your prompts): $XDG_STATE_HOME/cursor-wrap/logs,\n")
			b.WriteString("# else ~/.local/state/cursor-wrap/logs; but ~/.cursor-wrap/logs, where earlier\n")
			b.WriteString("# versions wrote them, while it exists (cursor-wrap doctor says how to move it)\n")
			fmt.Fprintf(&b, "# %s = %s\n\n", s.Key, strconv.Quote("~/.local/state/cursor-wrap/logs"))
			continue
		}
		fmt.Fprintf(&b, "# %s\n# %s = %s\n\n", s.Doc, s.Key, v)
	}
	b.WriteString(`# The tables come last: a key written below a [table] line belongs to that
# table, so top-level keys go above this comment. Uncomment a table's
# [header] line with the first key of it you set.

# Budgets for tool calls that declare no timeout, by tool kind; a kind not
# listed gets idle_timeout.
# [` + ToolTimeoutsKey + `]
# shellToolCall = "20m"
# mcpToolCall = "10m"

# The MCP server (cursor-wrap mcp): bounds on what a caller may ask for.
# [` + MCPKey + `]
`)
	for _, s := range MCPSettings {
		v := c.Value(MCPKey + "." + s.Key)
		if _, isDur := s.field(&c).(*time.Duration); isDur {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, "# %s\n# %s = %s\n", s.Doc, s.Key, v)
	}
	return b.String()
}

// Load reads the config file at path (or DefaultPath's, for "") and builds
// the configuration over it with the environment and the settings given
// as flags. It returns the file it read.
func Load(path string, flags map[string]string) (Config, File, error) {
	if path == "" {
		var err error
		if path, err = DefaultPath(os.Getenv); err != nil {
			return Config{}, File{}, err
		}
	}
	file, err := ReadFile(path)
	if err != nil {
		return Config{}, file, err
	}
	cfg, err := Build(file, os.Environ(), flags)
	return cfg, file, err
}

// inFileOrder returns keys (of table, "" for the top level) in the order of
// the lines they are on.
func inFileOrder(text []byte, table string, keys iter.Seq[string]) []string {
	line := map[string]int{}
	for k := range keys {
		line[k] = lineOf(text, table, k)
	}
	return slices.SortedFunc(maps.Keys(line), func(a, b string) int {
		return cmp.Or(cmp.Compare(line[a], line[b]), cmp.Compare(a, b))
	})
}
