package config

import (
	"os"

	"github.com/BurntSushi/toml"
)

// agentKeys are the settings that say which agent runs.
var agentKeys = []string{"agent", "agent_bin"}

// Fallback is the configuration without the config file, for a run the
// wrapper does not watch when the file (or another setting) is broken: the
// defaults, and the agent the environment and flags name
// ($CURSOR_WRAP_AGENT_BIN, --agent), else the one on PATH. No other
// setting is read, so none can break it.
func Fallback(flags map[string]string) Config {
	c := DefaultConfig()
	for _, key := range agentKeys {
		s, _ := Lookup(key)
		if v, ok := os.LookupEnv(s.Env()); ok {
			_ = c.set(s, v, FromEnv) // A string: never an error.
		}
		if v, ok := flags[key]; ok {
			_ = c.set(s, v, FromFlag)
		}
	}
	return c
}

// FallbackLogDir is the log dir when the configuration as a whole does not
// load (a typo in another key, a bad variable): commands that only read
// the logs must not be blocked by a setting they never use. It is the
// variable's log_dir, else the file's own log_dir when the file parses,
// else the default.
func FallbackLogDir(path string) (string, error) {
	c := DefaultConfig()
	s, _ := Lookup("log_dir")
	if v := os.Getenv(s.Env()); v != "" {
		_ = c.set(s, v, FromEnv) // A string: never an error.
	} else if v, ok := fileLogDir(path); ok {
		_ = c.set(s, v, FromFile)
	}
	if err := c.resolveLogDir(Home); err != nil {
		return "", err
	}
	return c.LogDir, nil
}

// fileLogDir reads log_dir alone from the config file at path (the
// default path for ""), ignoring every other key.
func fileLogDir(path string) (string, bool) {
	if path == "" {
		var err error
		if path, err = DefaultPath(os.Getenv); err != nil {
			return "", false
		}
	}
	text, err := readRegular(path)
	if err != nil {
		return "", false
	}
	var raw map[string]any
	if _, err := toml.Decode(string(text), &raw); err != nil {
		return "", false
	}
	v, ok := raw["log_dir"].(string)
	return v, ok && v != ""
}
