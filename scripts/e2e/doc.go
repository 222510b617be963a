// Package e2e runs the built binaries as a user would: every test that
// needs a real process, a pseudo-terminal, job control or a shell (the
// wrapper around the fake agent, the MCP server, the shell functions and
// completions, the demo), from the module's root as its working directory.
// It holds only tests; the commands' own tests run in process beside them.
package e2e
