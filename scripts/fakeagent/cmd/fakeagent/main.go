// Command fakeagent runs a script of agent-like steps; see package
// fakeagent for the steps.
package main

import (
	"os"

	"cursor-wrap/scripts/fakeagent"
)

func main() {
	os.Exit(fakeagent.Main(os.Args[1:]))
}
