// Command fakeagent runs a script of agent-like steps; see package
// cursor-wrap/ptyproxy/fakeagent for the steps.
package main

import (
	"os"

	"cursor-wrap/ptyproxy/fakeagent"
)

func main() {
	os.Exit(fakeagent.Main(os.Args[1:]))
}
