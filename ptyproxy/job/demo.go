package job

import (
	"errors"
	"os"
	"path/filepath"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/stream"
)

// DemoAgent is where `cursor-wrap demo --install-agent` puts the demo
// agent: $XDG_DATA_HOME/cursor-wrap/demo-agent/cursor-agent, else under
// ~/.local/share; "" where there is no home directory.
func DemoAgent() string {
	data := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(data) {
		home, err := config.Home()
		if err != nil {
			return ""
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "cursor-wrap", "demo-agent", "cursor-agent")
}

// IsDemoAgent reports whether the agent at path is the demo agent.
func IsDemoAgent(path string) bool {
	demo := DemoAgent()
	if demo == "" || path == "" {
		return false
	}
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := os.Stat(demo)
	return err == nil && os.SameFile(a, b)
}

// demoInstead returns the demo agent, when it stands in for a cursor agent
// that is not installed (err says so for profile) and agent_bin names
// none: a real cursor-agent installed later wins without a word to change.
func demoInstead(cfg config.Config, profile *stream.Profile, err error) (string, bool) {
	if !errors.Is(err, reaper.ErrNotFound) || cfg.AgentBin != "" || profile != stream.Cursor {
		return "", false
	}
	demo := DemoAgent()
	if fi, err := os.Stat(demo); demo == "" || err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", false
	}
	return demo, true
}
