// Command cursor-wrap runs a headless coding agent under a pseudo-terminal,
// forwards its stream-json output untouched, and kills it when it hangs.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "cursor-wrap: not built yet")
	os.Exit(125)
}
