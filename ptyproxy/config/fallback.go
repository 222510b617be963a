package config

import "os"

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
