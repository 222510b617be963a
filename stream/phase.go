package stream

import "strings"

// A Phase is what an agent is doing, as the last line of its stream says
// in its profile's words.
type Phase int

const (
	// Busy: a line that says nothing of the kind below, or one of an agent
	// without a profile.
	Busy Phase = iota
	// SessionOpened: the agent opened its session; the model has the
	// prompt.
	SessionOpened
	// ModelsTurn: the next word is the model's (the prompt or a tool's
	// result went to it, a turn or step began).
	ModelsTurn
	// Thinking: the model is reasoning.
	Thinking
	// Writing: the model is writing its reply.
	Writing
)

// Phase names the phase the agent is in after a line with label (Event.Label,
// "type/subtype"): its profile lists the label, or else the type alone, so
// that "thinking" stands for every subtype of it. A nil profile knows no
// phase.
func (p *Profile) Phase(label string) Phase {
	if p == nil {
		return Busy
	}
	if ph, ok := p.phases[label]; ok {
		return ph
	}
	typ, _, _ := strings.Cut(label, "/")
	return p.phases[typ]
}
