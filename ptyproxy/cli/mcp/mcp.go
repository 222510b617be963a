// Package mcp is the command `cursor-wrap mcp`: it runs the MCP server,
// cursor-wrap-mcp, in place of this process.
package mcp

import (
	"os"
	"os/exec"
	"path/filepath"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/reaper"
)

// Command is `cursor-wrap mcp`, as both binaries know it.
var Command = cli.MCP(Run)

// server is the MCP server's binary. It is a binary of its own so that
// the MCP SDK does not weigh on the start of every wrapped agent run.
const server = "cursor-wrap-mcp"

// Run runs the MCP server, installed beside this binary (else found on
// PATH), in place of this process, on its descriptors: cursor-wrap mcp
// [flags].
func Run(env *cli.Env, args []string) int {
	self, _ := os.Executable()
	path := filepath.Join(filepath.Dir(self), server)
	if _, err := os.Stat(path); err != nil {
		if path, err = exec.LookPath(server); err != nil {
			return env.Fail(job.ExitNotFound, "cursor-wrap mcp runs %s, which is neither beside %s nor on PATH: install it with `go install ./mcpserver/cmd/%s` (scripts/install.sh installs both)", server, self, server)
		}
	}
	err := reaper.Exec(path, append([]string{path}, args...), os.Environ())
	return env.Fail(job.ExitNotExec, "run %s: %v", path, err)
}
