package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"cursor-wrap/ptyproxy/config"
)

// LogDirFlags are the flags of a command that reads the log dir.
type LogDirFlags struct{ LogDir, Config string }

// Declare declares --log-dir, what describing it, and --config.
func (o *LogDirFlags) Declare(fs *flag.FlagSet, what string) {
	fs.StringVar(&o.LogDir, "log-dir", "", what+" (default: log_dir of the config)")
	fs.StringVar(&o.Config, "config", "", "config file, for log_dir")
}

// Dir is the log dir the command reads: its --log-dir, else the config's
// log_dir. A config broken elsewhere does not block reading the logs: it
// is said in one warning line on env's stderr, with the dir read instead.
func (o LogDirFlags) Dir(env *Env) (string, error) {
	if o.LogDir != "" {
		return o.LogDir, nil
	}
	cfg, _, err := config.Load(o.Config, nil)
	if err == nil || !errors.Is(err, config.ErrConfig) {
		return cfg.LogDir, err
	}
	dir, fbErr := config.FallbackLogDir(o.Config)
	if fbErr != nil {
		return "", err
	}
	fmt.Fprintf(env.Stderr, "cursor-wrap: warning: config ignored: %s; reading the logs in %s\n", strings.ReplaceAll(err.Error(), "\n", "; "), dir)
	return dir, nil
}
