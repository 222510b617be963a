package config

import (
	"path/filepath"
	"testing"
)

// TestFallbackReadsOnlyTheAgent: a run the wrapper does not watch takes
// the agent from the environment and the flags, the flag winning, and no
// other setting, so a broken one cannot stop it.
func TestFallbackReadsOnlyTheAgent(t *testing.T) {
	t.Setenv("CURSOR_WRAP_AGENT_BIN", "/opt/agent")
	t.Setenv("CURSOR_WRAP_AGENT", "codex")
	t.Setenv("CURSOR_WRAP_IDLE_TIMEOUT", "five minutes")
	c := Fallback(map[string]string{"agent": "claude", "exit_grace": "nonsense"})
	defaults := DefaultConfig()
	for _, tc := range []struct {
		key, value string
		src        Source
	}{
		{"agent_bin", "/opt/agent", FromEnv},
		{"agent", "claude", FromFlag},
		{"idle_timeout", defaults.Value("idle_timeout"), FromDefault},
		{"exit_grace", defaults.Value("exit_grace"), FromDefault},
	} {
		if v, src := c.Value(tc.key), c.Source(tc.key); v != tc.value || src != tc.src {
			t.Errorf("%s = %s from %s, want %s from %s", tc.key, v, src, tc.value, tc.src)
		}
	}
}

// TestFallbackLogDir: commands that only read the logs find them when the
// configuration does not load: the variable's log_dir, else the file's
// when the file parses (whatever else is wrong in it), else the default.
func TestFallbackLogDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	defaultDir := filepath.Join(home, ".local/state/cursor-wrap/logs")
	for _, tc := range []struct {
		name, env, file string
		want            string
	}{
		{"the variable, over the file", "/from/env", `log_dir = "/from/file"`, "/from/env"},
		{"the file's, beside a broken setting", "", "log_dir = \"/from/file\"\nidle_timeout = \"soon\"\n", "/from/file"},
		{"under ~/", "", `log_dir = "~/logs"`, filepath.Join(home, "logs")},
		{"an empty one in the file", "", `log_dir = ""`, defaultDir},
		{"not a string", "", `log_dir = 3`, defaultDir},
		{"a file that does not parse", "", "log_dir = \"/from/file\"\n[[", defaultDir},
		{"no file", "", "", defaultDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CURSOR_WRAP_LOG_DIR", tc.env)
			path := filepath.Join(t.TempDir(), "absent.toml")
			if tc.file != "" {
				path = writeConfig(t, tc.file)
			}
			if got, err := FallbackLogDir(path); got != tc.want || err != nil {
				t.Errorf("FallbackLogDir = %q, %v; want %q", got, err, tc.want)
			}
			// With no path given, the file is found where Load looks.
			t.Setenv("CURSOR_WRAP_CONFIG", path)
			if got, err := FallbackLogDir(""); got != tc.want || err != nil {
				t.Errorf("FallbackLogDir(\"\") = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
