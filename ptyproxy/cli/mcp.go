package cli

import "flag"

// MCPOptions are the command line of `cursor-wrap mcp`, which cursor-wrap
// hands to cursor-wrap-mcp whole.
type MCPOptions struct {
	Config   string            // --config
	Settings map[string]string // log_dir, agent_bin and log_level given as flags, as text
	Version  bool              // --version
}

// Declare declares the options as flags on fs.
func (o *MCPOptions) Declare(fs *flag.FlagSet) {
	o.Settings = map[string]string{}
	SettingFlags(fs, &o.Config, o.Settings, "log_dir", "agent_bin", "log_level")
	fs.BoolVar(&o.Version, "version", false, "print the version and exit")
}

// MCP is the command `cursor-wrap mcp`, as both binaries know it, run by
// run.
func MCP(run func(env *Env, args []string) int) Command {
	return Command{
		Name:    "mcp",
		Args:    "[--config FILE] [--log-dir DIR] [--agent-bin PATH] [--log-level LEVEL]",
		Summary: "serve watched agents to MCP clients on stdio",
		Flags:   func(fs *flag.FlagSet) { new(MCPOptions).Declare(fs) },
		Run:     run,
	}
}
