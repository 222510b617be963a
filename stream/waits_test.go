package stream

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestModelCallsInCaptures walks every capture of every agent with its
// model-call table, as the watchdog reads it (a model call open while no
// tool call is): the model is waited on at some point of each, never while
// a tool call it announced runs, again once the tools' results are back,
// and no longer once the answer is complete.
func TestModelCallsInCaptures(t *testing.T) {
	t.Parallel()
	for _, p := range Profiles() {
		if opens, closes := p.ModelCalls(); len(opens) == 0 || len(closes) == 0 {
			t.Errorf("%s: a model-call table that opens %q and closes %q", p.Name, opens, closes)
			continue
		}
		for _, file := range capturesOf(t, p) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			open, waited := false, false
			tools := map[string]bool{}
			for i, ev := range parseAll(p, data) {
				switch ev.Model {
				case ModelOpens:
					open = true
				case ModelCloses:
					open = false
				}
				tool := false
				for _, c := range ev.Started {
					if !c.Turn {
						tools[c.ID], tool = true, true
					}
				}
				for _, id := range ev.Ended {
					delete(tools, id)
				}
				waiting := open && len(tools) == 0
				waited = waited || waiting
				if tool && open {
					t.Errorf("%s line %d (%s): a tool call starts, the model call stays open", filepath.Base(file), i+1, ev.Label())
				}
				// (opencode's tools appear only once done, inside its step:
				// the step's end is its turn's.)
				if len(ev.Ended) > 0 && len(tools) == 0 && !waiting && !ev.Terminal && p != OpenCode {
					t.Errorf("%s line %d (%s): the tools' results are back, the model is not waited on", filepath.Base(file), i+1, ev.Label())
				}
				if ev.Terminal && open {
					t.Errorf("%s line %d (%s): the answer is complete, the model call still open", filepath.Base(file), i+1, ev.Label())
				}
			}
			if !waited && !strings.Contains(file, "not-logged-in") {
				t.Errorf("%s: the model is never waited on", filepath.Base(file))
			}
		}
	}
}

// TestModelEdge reads a label's edge: its type and subtype, else its
// type alone.
func TestModelEdge(t *testing.T) {
	t.Parallel()
	m := modelTable{"tool_call/completed": ModelOpens, "assistant": ModelCloses}
	for _, tc := range []struct {
		typ, sub string
		want     ModelEdge
	}{
		{"tool_call", "completed", ModelOpens},
		{"tool_call", "started", NoModelEdge},
		{"assistant", "", ModelCloses},
		{"assistant", "delta", ModelCloses},
		{"", "", NoModelEdge},
		{strings.Repeat("t", 100), strings.Repeat("s", 100), NoModelEdge},
	} {
		if got := m.edge(tc.typ, tc.sub); got != tc.want {
			t.Errorf("%s/%s: %v, want %v", tc.typ, tc.sub, got, tc.want)
		}
	}
	if opens, closes := Cursor.ModelCalls(); !slices.Contains(opens, "system/init") || !slices.Contains(closes, "assistant") {
		t.Errorf("cursor opens %q, closes %q", opens, closes)
	}
}

// TestModelCallTableDoc keeps docs/hang-rules.md's table of the lines that
// open and close a model call equal to the profiles' tables.
func TestModelCallTableDoc(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "docs", "hang-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	labels := func(cell string) []string {
		var out []string
		for _, f := range strings.Split(cell, ",") {
			out = append(out, strings.Trim(strings.TrimSpace(f), "`"))
		}
		return out
	}
	rows := map[string][2][]string{}
	inTable := false
	for line := range strings.Lines(string(b)) {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		switch {
		case strings.HasPrefix(line, "| agent | opens a model call |"):
			inTable = true
		case !inTable || strings.HasPrefix(line, "|---"):
		case strings.HasPrefix(line, "|") && len(cells) == 3:
			rows[strings.TrimSpace(cells[0])] = [2][]string{labels(cells[1]), labels(cells[2])}
		default:
			inTable = false
		}
	}
	if len(rows) != len(Profiles()) {
		t.Errorf("docs/hang-rules.md's model-call table has %d rows, there are %d profiles", len(rows), len(Profiles()))
	}
	for _, p := range Profiles() {
		opens, closes := p.ModelCalls()
		if row := rows[p.Name]; !slices.Equal(row[0], opens) || !slices.Equal(row[1], closes) {
			t.Errorf("docs/hang-rules.md: %s opens %q and closes %q; its profile opens %q and closes %q", p.Name, row[0], row[1], opens, closes)
		}
	}
}

// TestAgentProcesses: what the wrapper needs to know of the agent's
// processes and waits, and nothing from an unknown agent (no profile).
func TestAgentProcesses(t *testing.T) {
	t.Parallel()
	var unknown *Profile
	if unknown.Runtime() != "" || unknown.KeepAliveWait() != 0 {
		t.Errorf("no profile: runtime %q, keep-alive wait %v", unknown.Runtime(), unknown.KeepAliveWait())
	}
	if Codex.Runtime() != "codex" || Codex.KeepAliveWait() != 330*time.Second {
		t.Errorf("codex: runtime %q, keep-alive wait %v", Codex.Runtime(), Codex.KeepAliveWait())
	}
	if Cursor.KeepAliveWait() != 0 {
		t.Errorf("cursor: keep-alive wait %v", Cursor.KeepAliveWait())
	}
	for p, byDir := range map[*Profile]bool{Claude: true, Gemini: true, Cursor: false, Codex: false, OpenCode: false} {
		if p.WorkspaceByDir() != byDir {
			t.Errorf("%s: workspace by directory %v, want %v", p.Name, p.WorkspaceByDir(), byDir)
		}
	}
}
