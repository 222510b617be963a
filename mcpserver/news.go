package mcpserver

import (
	"fmt"
	"strings"
	"time"
)

// maxNews bounds what a run remembers for wait_agent: the last tool calls
// and warnings, and the open calls whose command an end note repeats.
const maxNews = 100

// A toolNote is a tool call that started or ended.
type toolNote struct {
	Event   string `json:"event"` // started or ended
	CallID  string `json:"call_id"`
	Kind    string `json:"kind,omitempty"`
	Command string `json:"command,omitempty"`
	At      string `json:"at"` // RFC 3339
}

// A note is one thing that happened in a run: a tool call, or a warning.
type note struct {
	seq     int
	tool    toolNote
	warning string
}

// A journal keeps a run's last notes, and how far wait_agent has
// reported them.
type journal struct {
	ring  [maxNews]note
	seq   int // notes ever added; note n is in ring[n%maxNews]
	taken int // the last note reported
	open  map[string]toolNote
}

// news is what happened since the last wait_agent on a run.
type news struct {
	ToolCalls []toolNote `json:"tool_calls"`
	Warnings  []string   `json:"warnings"`
	// Omitted counts what happened but is no longer remembered.
	Omitted int `json:"omitted,omitempty"`
}

func (j *journal) add(n note) {
	j.seq++
	n.seq = j.seq
	if n.tool.Event == "started" {
		if j.open == nil {
			j.open = map[string]toolNote{}
		}
		if len(j.open) < maxNews {
			j.open[n.tool.CallID] = n.tool
		}
	}
	j.ring[j.seq%maxNews] = n
}

// started notes a tool call that starts at.
func (j *journal) started(t toolNote, at time.Time) {
	t.Event, t.At = "started", at.UTC().Format(time.RFC3339Nano)
	j.add(note{tool: t})
}

// ended notes the end of call id, with its command if it is known.
func (j *journal) ended(id string, at time.Time) {
	t, ok := j.open[id]
	delete(j.open, id)
	if !ok {
		t = toolNote{CallID: id}
	}
	t.Event, t.At = "ended", at.UTC().Format(time.RFC3339Nano)
	j.add(note{tool: t})
}

// unseen returns the notes since the last take, oldest first, and how
// many more there were.
func (j *journal) unseen() (notes []note, omitted int) {
	from := max(j.taken, j.seq-maxNews) + 1
	for s := from; s <= j.seq; s++ {
		notes = append(notes, j.ring[s%maxNews])
	}
	return notes, from - j.taken - 1
}

// warned reports whether a warning has not been reported yet.
func (j *journal) warned() bool {
	notes, _ := j.unseen()
	for _, n := range notes {
		if n.warning != "" {
			return true
		}
	}
	return false
}

// take returns the news since the last take.
func (j *journal) take() news {
	notes, omitted := j.unseen()
	j.taken = j.seq
	out := news{ToolCalls: []toolNote{}, Warnings: []string{}, Omitted: omitted}
	for _, n := range notes {
		if n.warning != "" {
			out.Warnings = append(out.Warnings, n.warning)
		} else {
			out.ToolCalls = append(out.ToolCalls, n.tool)
		}
	}
	return out
}

// maxNewsText bounds the tool calls the text of a wait names.
const maxNewsText = 10

// String says the news in a sentence or two, "" when there is none.
func (n news) String() string {
	var parts []string
	for i, t := range n.ToolCalls {
		if i == maxNewsText {
			parts = append(parts, fmt.Sprintf("%d more tool call events", len(n.ToolCalls)-i))
			break
		}
		what := strings.TrimSpace(t.Kind + " " + fmt.Sprintf("%q", t.Command))
		if t.Command == "" {
			what = strings.TrimSpace(t.Kind + " " + t.CallID)
		}
		parts = append(parts, t.Event+" "+what)
	}
	if n.Omitted > 0 {
		parts = append(parts, fmt.Sprintf("%d earlier events not kept", n.Omitted))
	}
	for _, w := range n.Warnings {
		parts = append(parts, "WARNING: "+w)
	}
	return strings.Join(parts, "; ")
}
