package stream

import (
	"maps"
	"slices"
	"time"
)

// What an agent waits on, as far as the wrapper can see it from outside:
// the one process besides its own that does its work (Profile.Runtime),
// and the lines of its stream between which it waits on its model (each
// agent's file has its table).

// A ModelEdge says whether a line of an agent's stream opens a call to
// its model (the model has the prompt, or a tool's result, and its next
// words are awaited) or closes one (its words came, or a tool took over).
type ModelEdge uint8

const (
	NoModelEdge ModelEdge = iota
	ModelOpens
	ModelCloses
)

// A modelTable maps the labels of the lines that open or close a model
// call ("type/subtype", or "type" for every subtype) to which they do.
type modelTable map[string]ModelEdge

// edge is what a line of type typ and subtype sub does to the model call.
func (m modelTable) edge(typ, sub string) ModelEdge {
	if sub != "" {
		var buf [64]byte
		// A lookup by string(bytes) does not allocate: this is the hot path.
		if e, ok := m[string(append(append(append(buf[:0], typ...), '/'), sub...))]; ok {
			return e
		}
	}
	return m[typ]
}

// Runtime names the agent's runtime process by its command name (as
// /proc/PID/comm has it): the first child of the agent process, started
// with it, that bears that name does the agent's work and holds its model
// connection. "" for an agent that is one process, or a nil profile.
func (p *Profile) Runtime() string {
	if p == nil {
		return ""
	}
	return p.runtime
}

// KeepAliveWait is the agent's own bound on a model call that receives
// keep-alives only, where its own stream watchdog gives up sooner than
// the wrapper's default would (Codex): the longest such silence the
// wrapper excuses unless max_keepalive_wait is set. 0 for none.
func (p *Profile) KeepAliveWait() time.Duration {
	if p == nil {
		return 0
	}
	return p.keepAliveWait
}

// ModelCalls lists the labels of the lines that open a model call, and of
// those that close one, sorted: the agent's table, for its docs.
func (p *Profile) ModelCalls() (opens, closes []string) {
	for _, label := range slices.Sorted(maps.Keys(p.modelCalls)) {
		if p.modelCalls[label] == ModelOpens {
			opens = append(opens, label)
		} else {
			closes = append(closes, label)
		}
	}
	return opens, closes
}
