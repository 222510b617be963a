package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// loadConfig reads the config file at path (or the default path, for "")
// and builds the configuration over it with the environment and the
// settings given as flags.
func loadConfig(path string, flags map[string]string) (watchdog.Config, watchdog.File, string, error) {
	if path == "" {
		path = watchdog.DefaultPath(os.Getenv)
	}
	file, err := watchdog.ReadFile(path)
	if err != nil {
		return watchdog.Config{}, file, path, err
	}
	cfg, err := watchdog.Build(file, os.Environ(), flags)
	return cfg, file, path, err
}

// resolveAgent finds the agent's profile and binary (SPEC §3): the
// configured agent_bin, else the profile's commands on PATH that are not
// the wrapper, the name the user typed first. Without a configured agent
// the binary's name picks the profile.
func resolveAgent(cfg watchdog.Config, invoked string) (*stream.Profile, string, error) {
	profile := stream.Cursor
	if cfg.Agent != "" {
		var err error
		if profile, err = stream.ProfileNamed(cfg.Agent); err != nil {
			return nil, "", err
		}
	}
	names, err := shellhook.Binaries(profile.Name, invoked)
	if err != nil {
		return nil, "", err
	}
	self, _ := os.Executable()
	bin, err := shellhook.Resolve(names, cfg.AgentBin, self, os.Getenv("PATH"))
	if err != nil {
		return profile, "", err
	}
	if cfg.Agent == "" {
		if p := stream.ProfileFor(filepath.Base(bin)); p != nil {
			profile = p
		}
	}
	return profile, bin, nil
}

// reloadConfig builds the configuration anew after its file changed and
// says so in one console line. Invalid, the error says why and the last
// good values stay; unchanged, changes and pinned are empty.
func reloadConfig(old watchdog.Config, path string, flags map[string]string, console *slog.Logger) (watchdog.Config, []watchdog.Change, []string, error) {
	cfg, file, _, err := loadConfig(path, flags)
	if err != nil {
		console.Warn("config not reloaded, keeping the last good values: " + err.Error())
		return old, nil, nil, err
	}
	changes, pinned := watchdog.Diff(old, cfg, file)
	if len(changes) == 0 && len(pinned) == 0 {
		return old, nil, nil, nil
	}
	var words []string
	for _, c := range changes {
		words = append(words, c.Key+" "+c.Old+" → "+c.New)
	}
	for _, p := range pinned {
		words = append(words, p+" pinned, unchanged")
	}
	console.Info("config reloaded: " + strings.Join(words, ", "))
	return cfg, changes, pinned, nil
}

func levelOf(name string) slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(name)) // Validated with the config.
	return l
}
