package reaper

import "errors"

// ErrNotFound and ErrNotExecutable say why the agent cannot be run, as a
// shell's 127 and 126 do: there is no such program, or one that cannot be
// executed. Finding the agent (shellhook) and starting it (ptyproxy) both
// wrap them, and the exit-status policy reads them.
var (
	ErrNotFound      = errors.New("agent not found")
	ErrNotExecutable = errors.New("the agent is not executable")
)
