package shellhook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DepthEnv counts the cursor-wrap processes above an agent. Each wrapper
// passes its agent one more than it got.
const DepthEnv = "CURSOR_WRAP_DEPTH"

// MaxDepth is the depth ChildEnv refuses. It is above 1 because an agent may
// rightly run another agent through the wrapper (its shell tool typing
// cursor-agent); only a wrapper that reaches itself, say through a script
// that Resolve cannot see through, goes this deep.
const MaxDepth = 4

// Depth returns the depth environ records: its last DepthEnv entry, the one
// os/exec would pass on. It is 0 when the entry is absent, negative or not a
// number, since no wrapper wrote it.
func Depth(environ []string) int {
	depth := 0
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, DepthEnv+"="); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				n = 0
			}
			depth = n
		}
	}
	return depth
}

// ChildEnv returns the agent's environment: environ with DepthEnv one deeper
// and without FuncEnv, which describes this wrapper's invocation only. It
// fails with ErrIsWrapper when environ is already MaxDepth deep.
func ChildEnv(environ []string) ([]string, error) {
	depth := Depth(environ)
	if depth >= MaxDepth {
		return nil, fmt.Errorf("%w: %s=%d, cursor-wrap is nested %d deep; %s", ErrIsWrapper, DepthEnv, depth, depth, setAgentBin)
	}
	env := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		return strings.HasPrefix(kv, DepthEnv+"=") || strings.HasPrefix(kv, FuncEnv+"=")
	})
	return append(env, DepthEnv+"="+strconv.Itoa(depth+1)), nil
}
