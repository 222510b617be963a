package stream

import (
	"os"
	"path/filepath"
	"testing"
)

// events parses a fixture of testdata/wild as the proxy would.
func events(t *testing.T, p *Profile, file string) []Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "wild", file))
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	s := NewSplitter(DefaultKeep, NewJoiner(DefaultKeep, p.Parse, func(_ Line, ev Event) { evs = append(evs, ev) }).Add)
	s.Write(data)
	s.Flush()
	return evs
}

// TestClaudeSystemBeforeInit: the hook and thinking_tokens events Claude
// Code 2.1.268 writes before init name no session and are no phase of
// their own; init names it, and the result ends the run as an answer.
func TestClaudeSystemBeforeInit(t *testing.T) {
	t.Parallel()
	evs := events(t, Claude, "claude-hooks-before-init.jsonl")
	var reply Reply
	for i, ev := range evs {
		reply.Add(ev)
		if i < 3 && (ev.Type != "system" || ev.SessionID != "" || ev.Terminal || ev.Error != nil) {
			t.Errorf("line %d: %+v", i+1, ev)
		}
	}
	if evs[3].SessionID != "5d1c0e7a-3b2f-4c9e-8a61-0f2b7d9e4c13" || !evs[5].Terminal || evs[5].Failed || reply.String() != "Done: the tests pass." {
		t.Errorf("init %+v, result %+v, answer %q", evs[3], evs[5], reply.String())
	}
}

// TestClaudeSuccessMarkedError: "subtype":"success" with is_error is a
// failed run: terminal, Failed, no answer.
func TestClaudeSuccessMarkedError(t *testing.T) {
	t.Parallel()
	evs := events(t, Claude, "claude-api-error-success.jsonl")
	last := evs[len(evs)-1]
	if !last.Terminal || !last.Failed || last.Answer != "" || last.Error == nil {
		t.Errorf("result %+v", last)
	}
}

// TestCursorPartialReplay: with --stream-partial-output the answer is the
// result's, once, however the text deltas and their replay read.
func TestCursorPartialReplay(t *testing.T) {
	t.Parallel()
	var reply Reply
	thinking := 0
	for _, ev := range events(t, Cursor, "cursor-partial-output.jsonl") {
		reply.Add(ev)
		if ev.Type == "thinking" {
			thinking++
		}
	}
	if reply.String() != "Hello, world." || thinking != 7 {
		t.Errorf("answer %q, %d thinking events", reply.String(), thinking)
	}
}
