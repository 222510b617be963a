package main

import (
	"log/slog"
	"os"

	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// resolveAgent finds the agent's profile and binary (SPEC §3): the
// configured agent_bin, else the profile's commands on PATH that are not
// the wrapper, the name the user typed first. Without a configured agent
// the binary's name picks the profile. The profile is returned even when
// the binary is not found.
func resolveAgent(cfg watchdog.Config, invoked string) (*stream.Profile, string, error) {
	self, _ := os.Executable()
	name, bin, err := shellhook.FindAgent(cfg.Agent, invoked, cfg.AgentBin, self, os.Getenv("PATH"))
	if name == "" {
		return nil, "", err
	}
	profile, perr := stream.ProfileNamed(name)
	if perr != nil {
		return nil, "", perr
	}
	return profile, bin, err
}

// reloadConfig builds the configuration anew after its file changed and
// says so in one console line. Invalid, the error says why and the last
// good values stay; unchanged, changes and pinned are empty.
func reloadConfig(old watchdog.Config, path string, flags map[string]string, console *slog.Logger) (watchdog.Config, []watchdog.Change, []string, error) {
	cfg, changes, pinned, err := watchdog.Reload(old, path, flags)
	switch {
	case err != nil:
		console.Warn("config not reloaded, keeping the last good values: " + err.Error())
	case len(changes) > 0 || len(pinned) > 0:
		console.Info("config reloaded: " + watchdog.Summary(changes, pinned))
	}
	return cfg, changes, pinned, err
}

func levelOf(name string) slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(name)) // Validated with the config.
	return l
}
