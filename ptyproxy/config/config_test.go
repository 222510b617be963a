package config

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func build(t *testing.T, text string, env []string, flags map[string]string) (Config, error) {
	t.Helper()
	f, err := ReadFile(writeConfig(t, text))
	if err != nil {
		return Config{}, err
	}
	return Build(f, env, flags)
}

func TestPrecedence(t *testing.T) {
	t.Parallel()
	c, err := build(t, `
idle_timeout = "90s"
tool_grace = "10s"
kill_grace = "2s"
restarts = 2
activity_cpu_floor = 1
max_cost_usd = 1.5
[tool_timeouts]
shellToolCall = "20m"
[mcp]
max_concurrent = 8
`, []string{"CURSOR_WRAP_TOOL_GRACE=20s", "CURSOR_WRAP_KILL_GRACE=3s", "UNRELATED=1", "CURSOR_WRAP_UNKNOWN=x", "CURSOR_WRAP_MAX_TOKENS=200000"}, map[string]string{"kill_grace": "4s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key   string
		value string
		src   Source
	}{
		{"idle_timeout", "1m30s", FromFile},
		{"tool_grace", "20s", FromEnv},
		{"kill_grace", "4s", FromFlag},
		{"exit_grace", "5s", FromDefault},
		{"restarts", "2", FromFile},
		{"activity_cpu_floor", "1", FromFile},
		{ToolTimeoutsKey, `{shellToolCall = "20m0s"}`, FromFile},
		{"mcp.max_concurrent", "8", FromFile},
		{"mcp.max_idle_timeout", "30m0s", FromDefault},
		{"max_tokens", "200000", FromEnv},
		{"max_cost_usd", "1.5", FromFile},
	} {
		if v, src := c.Value(tc.key), c.Source(tc.key); v != tc.value || src != tc.src {
			t.Errorf("%s = %s from %s, want %s from %s", tc.key, v, src, tc.value, tc.src)
		}
	}
	if th := c.Thresholds; th.ToolTimeouts["shellToolCall"] != 20*time.Minute || th.IdleTimeout != 90*time.Second {
		t.Errorf("thresholds %+v", th)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		flags      map[string]string
		want       string
		env        []string
	}{
		{"unknown key names its line", "idle_timeout = \"5s\"\n\nidle_timout = \"5s\"\n", nil, `:3: unknown key "idle_timout"`, nil},
		{"unknown mcp key", "[mcp]\nmax_concurent = 3\n", nil, `:2: unknown key "max_concurent" in [mcp]`, nil},
		{"syntax", "idle_timeout = \n", nil, ":1:", nil},
		{"not a duration", "tool_grace = \"5 minutes\"\n", nil, `:1: tool_grace: "5 minutes" is not a duration`, nil},
		{"number for a duration", "tool_grace = 5\n", nil, `:1: tool_grace: want a duration in quotes`, nil},
		{"string for a number", "restarts = \"2\"\n", nil, `:1: restarts: want a whole number`, nil},
		{"bad tool timeout", "[tool_timeouts]\n\nshellToolCall = 5\n", nil, `:3: tool_timeouts.shellToolCall`, nil},
		{"negative", "exit_grace = \"-1s\"\n", nil, "exit_grace: -1s is negative", nil},
		{"zero tick", "tick_interval = \"0s\"\n", nil, "tick_interval: 0s is less than 10ms", nil},
		{"spinning tick", "", map[string]string{"tick_interval": "1ns"}, "--tick-interval 1ns: 1ns is less than 10ms", nil},
		{"kill grace cap", "", map[string]string{"kill_grace": "2m"}, "--kill-grace 2m: 2m0s is more than 1m", nil},
		{"log level", "log_level = \"loud\"\n", nil, `log_level: "loud" is not`, nil},
		{"bad flag", "", map[string]string{"idle_timeout": "soon"}, `--idle-timeout: "soon" is not a duration`, nil},
		{"negative flag", "", map[string]string{"idle_timeout": "-1s"}, `--idle-timeout -1s: -1s is negative`, nil},
		{"mcp bounds", "[mcp]\nmin_idle_timeout = \"1h\"\n", nil, ":2: mcp.min_idle_timeout: must be positive and no more than max_idle_timeout", nil},
		{"negative env", "", nil, "$CURSOR_WRAP_TOOL_GRACE=-5s: -5s is negative", []string{"CURSOR_WRAP_TOOL_GRACE=-5s"}},
		{"bad env", "", nil, `$CURSOR_WRAP_RESTARTS: "two" is not a whole number`, []string{"CURSOR_WRAP_RESTARTS=two"}},
		{"unknown key suggests", "idle_timout = \"5s\"\n", nil, `(did you mean "idle_timeout"?)`, nil},
		{"notify as a string", "notify = \"desktop\"\n", nil, `:1: notify: want an array of strings, like ["desktop"]`, nil},
		{"notify target", "\nnotify = [\"desktop\", \"desktp\"]\n", nil, `:2: notify: "desktp" is not desktop or an http(s) URL (did you mean "desktop"?)`, nil},
		{"notify scheme", "", map[string]string{"notify": "htps://hooks.slack.com/services/T0/B0/secret"},
			`: "htps://hooks.slack.com/…" is not desktop or an http(s) URL (did you mean "https://hooks.slack.com/…"?)`, nil},
		{"notify without scheme", "", nil, `(did you mean "https://ntfy.sh/…"?)`, []string{"CURSOR_WRAP_NOTIFY=ntfy.sh/topic"}},
		{"unknown agent", "", nil, `$CURSOR_WRAP_AGENT=cusor: unknown agent "cusor"; known agents: cursor, claude, codex, gemini, opencode (did you mean "cursor"?)`, []string{"CURSOR_WRAP_AGENT=cusor"}},
		{"negative token budget", "max_tokens = -1\n", nil, ":1: max_tokens: -1 is negative", nil},
		{"NaN cost budget", "", map[string]string{"max_cost_usd": "NaN"}, "--max-cost-usd NaN: NaN is not a number a budget can be", nil},
		{"negative cost budget", "", nil, "$CURSOR_WRAP_MAX_COST_USD=-0.5: -0.5 is negative", []string{"CURSOR_WRAP_MAX_COST_USD=-0.5"}},
		{"cost budget in words", "max_cost_usd = \"ten\"\n", nil, ":1: max_cost_usd: want a number", nil},
		{"notify event", "notify_on = [\"hang\", \"finsh\"]\n", nil, `:1: notify_on: "finsh" is not one of hang, error, restart, finish, warn (did you mean "finish"?)`, nil},
		{"nested past the bound", "a = 1\nx = [[[[[[[[[1]]]]]]]]]\n", nil, ":2: nested more than 8 deep: no setting is", nil},
		{"mcp not a table", "\nmcp = 3\n", nil, ":2: mcp must be a table like [mcp]", nil},
		{"tool_timeouts not a table", "tool_timeouts = \"5m\"\n", nil, ":1: tool_timeouts must be a table like [tool_timeouts]", nil},
		{"mcp value of the wrong type", "[mcp]\n\nmax_concurrent = \"2\"\n", nil, ":3: [mcp] max_concurrent: want a whole number", nil},
		{"negative tool timeout", "[tool_timeouts]\nshellToolCall = \"-1m\"\n", nil, ":2: tool_timeouts.shellToolCall: -1m0s is not positive", nil},
		{"header without a name", "otel_headers = [\"a=1\", \"=2\", \"b=3\"]\n", nil, ":1: otel_headers: header 2 of 3 is not name=value", nil},
		{"unknown flag", "", map[string]string{"idle_timout": "1s"}, "--idle-timout: not a setting", nil},
		{"bad standard variable", "", nil, `$OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "maybe" is not true or false`,
			[]string{"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=maybe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := build(t, tc.text, tc.env, tc.flags)
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestNotifyLists: notify and notify_on are TOML arrays in the file and
// comma-separated lists as flags and variables.
func TestNotifyLists(t *testing.T) {
	t.Parallel()
	c, err := build(t, "notify = [\"desktop\", \"https://ntfy.sh/t\"]\n", []string{"CURSOR_WRAP_NOTIFY_ON= hang, finish,"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Notify, []string{"desktop", "https://ntfy.sh/t"}) || !slices.Equal(c.NotifyOn, []string{"hang", "finish"}) {
		t.Errorf("notify %q on %q", c.Notify, c.NotifyOn)
	}
	if v := c.Value("notify"); v != `["desktop", "https://ntfy.sh/t"]` {
		t.Errorf("value %s", v)
	}
	// A reload says what changed without a webhook's secret path.
	changes, _ := Diff(DefaultConfig(), c, File{})
	if i := slices.IndexFunc(changes, func(ch Change) bool { return ch.Key == "notify" }); i < 0 || changes[i].New != `["desktop", "https://ntfy.sh/…"]` {
		t.Errorf("changes %+v", changes)
	}
	c, err = build(t, "", nil, map[string]string{"notify": ""})
	if err != nil || len(c.Notify) != 0 || !slices.Equal(c.NotifyOn, []string{"hang", "error", "restart"}) {
		t.Errorf("defaults %q %q, %v", c.Notify, c.NotifyOn, err)
	}
}

func TestMissingFile(t *testing.T) {
	t.Parallel()
	f, err := ReadFile(filepath.Join(t.TempDir(), "none.toml"))
	if err != nil || f.Exists {
		t.Fatalf("missing file: %+v, %v", f, err)
	}
	c, err := Build(f, nil, nil)
	if err != nil || c.IdleTimeout != time.Minute {
		t.Errorf("defaults: %v, %v", c.IdleTimeout, err)
	}
}

// TestInitTextIsTheDefaults checks the file config --init writes: as
// written it sets nothing (every key reads as a default, so a default a
// later version changes applies); with every setting line uncommented it
// reads as exactly the defaults; every key is documented; and a top-level
// key added at its end is read as a top-level key, not a table's.
func TestInitTextIsTheDefaults(t *testing.T) {
	t.Parallel()
	text := InitText()
	c, err := build(t, text, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys() {
		if src := c.Source(k); src != FromDefault {
			t.Errorf("%s is set by the file (%s)", k, src)
		}
	}

	// Uncomment each "# key = value" and "# [table]" line, the examples
	// of [tool_timeouts] aside.
	setting := regexp.MustCompile(`(?m)^# ([a-z_]+ = .*|\[[a-z_]+\])$`)
	uncommented := setting.ReplaceAllString(text, "$1")
	c, err = build(t, uncommented, nil, nil)
	if err != nil {
		t.Fatalf("uncommented: %v\n%s", err, uncommented)
	}
	d := DefaultConfig()
	for _, k := range Keys() {
		if k == "log_dir" {
			// The comment shows the XDG place; the test's HOME may hold
			// the old one.
			continue
		}
		if c.Value(k) != d.Value(k) || (k != ToolTimeoutsKey && c.Source(k) != FromFile) {
			t.Errorf("uncommented: %s = %s (%s), default %s", k, c.Value(k), c.Source(k), d.Value(k))
		}
	}
	for _, s := range append(slices.Clone(Settings), MCPSettings...) {
		if s.Key != "log_dir" && !strings.Contains(text, "# "+s.Doc+"\n") {
			t.Errorf("%s is not documented", s.Key)
		}
	}
	if !strings.Contains(text, "# log_dir = \"~/.local/state/cursor-wrap/logs\"\n") || !strings.Contains(text, "$XDG_STATE_HOME/cursor-wrap/logs") {
		t.Errorf("log_dir is not documented")
	}

	c, err = build(t, text+"idle_timeout = \"2m\"\n", nil, nil)
	if err != nil || c.IdleTimeout != 2*time.Minute {
		t.Errorf("a key added at the end: %v, %v", c.IdleTimeout, err)
	}
}

func TestDiffAndPinned(t *testing.T) {
	t.Parallel()
	flags := map[string]string{"kill_grace": "4s"}
	old, _ := build(t, "idle_timeout = \"30s\"\n", nil, flags)
	path := writeConfig(t, "idle_timeout = \"1s\"\nkill_grace = \"9s\"\n")
	f, _ := ReadFile(path)
	cfg, err := Build(f, nil, flags)
	if err != nil {
		t.Fatal(err)
	}
	changes, pinned := Diff(old, cfg, f)
	if len(changes) != 1 || changes[0] != (Change{Key: "idle_timeout", Old: "30s", New: "1s"}) {
		t.Errorf("changes %v", changes)
	}
	if len(pinned) != 1 || pinned[0] != "kill_grace = 9s in the file, held at 4s by the flag" || cfg.KillGrace != 4*time.Second {
		t.Errorf("pinned %v, kill_grace %v", pinned, cfg.KillGrace)
	}
}

// TestDiffSamePinned: a file that sets a key to the value a flag pins
// (agent = "cursor" beside the shell function's --agent cursor) is no news.
func TestDiffSamePinned(t *testing.T) {
	t.Parallel()
	flags := map[string]string{"agent": "cursor"}
	path := writeConfig(t, "agent = \"cursor\"\nidle_timeout = \"30s\"\n")
	f, _ := ReadFile(path)
	old, err := Build(f, nil, flags)
	if err != nil {
		t.Fatal(err)
	}
	if changes, pinned := Diff(old, old, f); len(changes)+len(pinned) != 0 {
		t.Errorf("changes %v, pinned %v", changes, pinned)
	}
}

// TestDefaultPath: the config's path is never relative: without an
// absolute HOME it is under the password database's home, and a relative
// XDG_CONFIG_HOME is ignored.
func TestDefaultPath(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HOME": "/h"}
	get := func(k string) string { return env[k] }
	want := func(what, path string) {
		t.Helper()
		if got, err := DefaultPath(get); got != path || err != nil {
			t.Errorf("%s: %q, %v; want %q", what, got, err, path)
		}
	}
	want("home", "/h/.config/cursor-wrap/config.toml")
	env["XDG_CONFIG_HOME"] = "relative"
	want("a relative XDG_CONFIG_HOME", "/h/.config/cursor-wrap/config.toml")
	if u, err := user.Current(); err == nil {
		for _, home := range []string{"", "."} {
			env["HOME"] = home
			want(fmt.Sprintf("HOME=%q", home), filepath.Join(u.HomeDir, ".config/cursor-wrap/config.toml"))
		}
	}
	env["XDG_CONFIG_HOME"] = "/x"
	want("xdg", "/x/cursor-wrap/config.toml")
	env["CURSOR_WRAP_CONFIG"] = "/y.toml"
	want("env", "/y.toml")
}

// TestConfigNotAFile: a FIFO, a device or a huge file at the config's path
// is refused at once, never read for ever.
func TestConfigNotAFile(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "big.toml")
	// One byte past the bound: read up to it, never further.
	if err := os.WriteFile(big, nil, 0o600); err != nil || os.Truncate(big, maxConfigSize+1) != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "not a regular file", "/dev/zero": "not a regular file", big: "larger than 1024 KiB"} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: reading it did not return", path)
		}
	}
	// At the bound, a file is read: a comment padded to the size.
	atBound := writeConfig(t, "idle_timeout = \"7s\"\n#"+strings.Repeat(" ", maxConfigSize-22)+"\n")
	f, err := ReadFile(atBound)
	if c, berr := Build(f, nil, nil); err != nil || berr != nil || c.IdleTimeout != 7*time.Second {
		t.Errorf("a file of %d bytes: %v, %v, %v", maxConfigSize, c.IdleTimeout, err, berr)
	}
}

// TestOTelPrecedence: OpenTelemetry's standard variables beat the file and
// lose to the wrapper's own variable and flag; headers are never shown.
func TestOTelPrecedence(t *testing.T) {
	t.Parallel()
	file := `
otel_endpoint = "http://file:4318"
otel_headers = ["authorization=Bearer filesecret"]
otel_flush_timeout = "5s"
`
	c, err := build(t, file, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://std:4318", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.OTel.Endpoint != "http://std:4318" || c.Source("otel_endpoint") != FromEnv || !c.OTel.CaptureContent || c.OTel.FlushTimeout != 5*time.Second {
		t.Errorf("standard variable over the file: %+v", c.OTel)
	}
	c, err = build(t, file, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://std:4318", "CURSOR_WRAP_OTEL_ENDPOINT=http://own:4318"}, nil)
	if err != nil || c.OTel.Endpoint != "http://own:4318" {
		t.Errorf("the wrapper's variable over the standard one: %q, %v", c.OTel.Endpoint, err)
	}
	c, err = build(t, file, []string{"CURSOR_WRAP_OTEL_ENDPOINT=http://own:4318"}, map[string]string{"otel_endpoint": "http://flag:4318"})
	if err != nil || c.OTel.Endpoint != "http://flag:4318" {
		t.Errorf("the flag over every variable: %q, %v", c.OTel.Endpoint, err)
	}
	if shown := c.Shown("otel_headers"); strings.Contains(shown, "filesecret") || !strings.Contains(shown, "authorization=") {
		t.Errorf("otel_headers shown as %s", shown)
	}
	_, err = build(t, "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4318"}, nil)
	if err == nil || !strings.Contains(err.Error(), "$OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4318") {
		t.Errorf("a bad standard variable is named as such: %v", err)
	}
	_, err = build(t, `otel_headers = ["Bearer secretvalue"]`, nil, nil)
	if err == nil || strings.Contains(err.Error(), "secretvalue") {
		t.Errorf("a header without a name: %v", err)
	}
}

// TestCaptureContentValues: OpenTelemetry's content-capture variable says
// where the content goes; every place turns capture on, none (or nothing)
// off, and true or false mean what they say.
func TestCaptureContentValues(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]bool{
		"span_only": true, "EVENT_ONLY": true, "span_and_event": true, "true": true,
		"no_content": false, "NO_CONTENT": false, "": false, "false": false,
	} {
		f, _ := ReadFile(filepath.Join(t.TempDir(), "none.toml"))
		c, err := Build(f, []string{"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=" + value}, nil)
		if err != nil || c.OTel.CaptureContent != want || c.Source("otel_capture_content") != FromEnv {
			t.Errorf("%q: capture %v from %s, %v; want %v", value, c.OTel.CaptureContent, c.Source("otel_capture_content"), err, want)
		}
	}
}

// TestLoadFindsTheFile: with no path given, Load reads the file where
// $CURSOR_WRAP_CONFIG points, and says which file it read; a file it may
// not read is an error naming it.
func TestLoadFindsTheFile(t *testing.T) {
	path := writeConfig(t, `idle_timeout = "7s"`)
	t.Setenv("CURSOR_WRAP_CONFIG", path)
	c, f, err := Load("", nil)
	if err != nil || c.IdleTimeout != 7*time.Second || f.Path != path || !f.Exists {
		t.Errorf("Load(\"\"): idle %v, file %q (exists %v), %v", c.IdleTimeout, f.Path, f.Exists, err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, f, err := Load(fifo, nil); err == nil || f.Path != fifo || err.Error() != fifo+": not a regular file" {
		t.Errorf("Load(fifo): file %q, %v", f.Path, err)
	}
}

// TestNotifyTargetNoHint: a URL whose scheme is nothing like http gets no
// suggestion, only the reason.
func TestNotifyTargetNoHint(t *testing.T) {
	t.Parallel()
	_, err := build(t, "notify = [\"ftp://files.example.com/drop\"]\n", nil, nil)
	if err == nil || !strings.HasSuffix(err.Error(), `notify: "ftp://files.example.com/…" is not desktop or an http(s) URL`) {
		t.Errorf("error %v", err)
	}
}
