package main

import (
	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/job"

	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// mcpServer is the MCP server's binary. It is a binary of its own so that
// the MCP SDK does not weigh on the start of every wrapped agent run.
const mcpServer = "cursor-wrap-mcp"

// mcpCmd runs the MCP server, installed beside this binary (else found on
// PATH), in place of this process: cursor-wrap mcp [flags].
func mcpCmd(args []string) int {
	self, _ := os.Executable()
	path := filepath.Join(filepath.Dir(self), mcpServer)
	if _, err := os.Stat(path); err != nil {
		if path, err = exec.LookPath(mcpServer); err != nil {
			return cli.Fail(job.ExitNotFound, "cursor-wrap mcp runs %s, which is neither beside %s nor on PATH: install it with `go install ./mcpserver/cmd/%s` (scripts/install.sh installs both)", mcpServer, self, mcpServer)
		}
	}
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return cli.Fail(job.ExitNotExec, "run %s: %v", path, err)
}
