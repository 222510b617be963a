package cli

import (
	"slices"
	"strings"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/shellhook"
)

// otherEnv are the wrapper's environment variables that are not settings:
// the config file's path, the shell functions' switch and their word to
// the wrapper, the depth guard, the attempt marker, and what an on_hang or
// a notification command is given (it may run cursor-wrap again).
var otherEnv = []string{config.EnvPrefix + "CONFIG", config.EnvPrefix + "DISABLE", shellhook.FuncEnv, shellhook.DepthEnv,
	ptyproxy.MarkerEnv, config.EnvPrefix + "LOG", config.EnvPrefix + "SESSION_ID", config.EnvPrefix + "EXIT",
	config.EnvPrefix + "NOTIFY_TITLE", config.EnvPrefix + "NOTIFY_TEXT"}

// UnknownEnv says, for each variable of environ named like the wrapper's
// that the wrapper does not read, that it does nothing, and the one meant
// when it is a typo: a misspelled setting must not pass unseen.
func UnknownEnv(environ []string) []string {
	known := slices.Clone(otherEnv)
	for _, s := range config.Settings {
		known = append(known, s.Env())
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, config.EnvPrefix) || slices.Contains(known, name) {
			continue
		}
		msg := "$" + name + " is not a setting of cursor-wrap and does nothing"
		if s := config.Suggest(name, known); s != "" {
			msg += ": did you mean $" + s + "?"
		}
		out = append(out, msg)
	}
	return out
}
