package ptyproxy

import (
	"errors"

	"cursor-wrap/watchdog"
)

// inputs would read whether the agent waits for input; macOS does not
// tell another process what a process reads (no /proc), so the words on
// the agent's terminal decide (see watchdog.InputUnknown).
type inputs struct{}

func newInputs(*proc) *inputs { return &inputs{} }

var errNoProc = errors.New("macOS does not tell what a process waits to read")

func (*inputs) look([]int) (watchdog.Input, error) { return watchdog.InputUnknown, errNoProc }
