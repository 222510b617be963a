package fakeagent

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/term"

	"cursor-wrap/stream"
	"cursor-wrap/words"
)

// DemoSubcommand, as the first argument of a binary that links this
// package, makes it the demo agent: the script `cursor-wrap demo
// --install-agent` writes passes it, nobody else.
const DemoSubcommand = "__demo-agent"

// IsDemo reports whether a command line (without the program name) asks
// for the demo agent.
func IsDemo(args []string) bool { return len(args) > 0 && args[0] == DemoSubcommand }

// DemoVersion is the demo agent's answer to --version, which doctor
// shows: no version of Cursor's, and its name says what it is.
const DemoVersion = "0.0.0-demo (cursor-wrap's demo agent, not Cursor's cursor-agent)"

// DemoModel is the model the demo agent says it runs, in its init event.
const DemoModel = "demo (no model: cursor-wrap's demo agent)"

// Demo is the demo agent, cursor-agent's stand-in for a user without it:
// it answers a headless prompt as cursor-agent does (stream-json events,
// or the answer alone in text), with one harmless tool call; a prompt
// that says "hang" hangs and one that says "ask" asks a question only a
// person can answer. Every answer, its session ids and its model say it
// is the demo. args is its command line, DemoSubcommand first or not.
func Demo(args []string) int {
	if IsDemo(args) {
		args = args[1:]
	}
	prompt := stream.Cursor.Prompt(args)
	mode := stream.Cursor.ModeOf(args)
	if prompt == "" && mode != stream.Interactive && !term.IsTerminal(0) {
		// cursor-agent reads a prompt not in its args from stdin.
		b, _ := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
		prompt = strings.TrimSpace(string(b))
	}
	cwd, _ := os.Getwd()
	a := &agent{out: bufio.NewWriterSize(os.Stdout, 64<<10), flush: true, argv: args}
	sid := stream.Cursor.ResumedID(args)
	if sid == "" {
		sid = newDemoSession()
	}
	return a.run(demoSteps(args, mode, prompt, sid, cwd))
}

// newDemoSession is a session id no real agent gives: sessions and
// inspect show it. A resumed session keeps its id, as cursor-agent's does.
func newDemoSession() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // Never fails (crypto/rand).
	return fmt.Sprintf("demo-%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// demoTried is how to try the rest, which every answer ends with.
const demoTried = "Try `cursor-agent -p hang` to see a hang caught (after idle_timeout, 60s: `CURSOR_WRAP_IDLE_TIMEOUT=10s` shortens it), " +
	"`cursor-agent -p ask` for a question only a person can answer, and `cursor-wrap sessions` for the runs. " +
	"`cursor-wrap demo --remove-agent` removes the demo agent."

// demoSteps are the steps that answer args (whose mode is mode, and whose
// prompt is prompt) in session sid, run in cwd.
func demoSteps(args []string, mode stream.Mode, prompt, sid, cwd string) []string {
	switch {
	case slices.Contains(args, "--version") || slices.Contains(args, "-v"):
		return []string{"line", DemoVersion}
	case slices.Contains(args, "--help") || slices.Contains(args, "-h"):
		return []string{"line", "cursor-agent (demo): cursor-wrap's demo agent, not Cursor's cursor-agent.\n" +
			"It answers headless runs, as cursor-agent -p \"PROMPT\" [--output-format stream-json|text], and changes nothing.\n" + demoTried}
	case mode == stream.Interactive:
		return []string{"err", "cursor-agent (demo): cursor-wrap's demo agent answers headless runs only (cursor-agent -p \"PROMPT\"). " +
			"It is not Cursor's cursor-agent, which installs with `" + stream.Cursor.Install + "`.", "exit", "1"}
	}
	events := mode == stream.Events
	var steps []string
	// event prints one event, its keys in cursor-agent's order: type and
	// subtype first, the session last.
	event := func(kv ...any) {
		steps = append(steps, "line", obj(append(kv, "session_id", sid)...))
	}
	text := func(role, s string) json.RawMessage {
		return json.RawMessage(obj("role", role, "content", []json.RawMessage{json.RawMessage(obj("type", "text", "text", s))}))
	}
	say := func(s string) {
		if events {
			event("type", "assistant", "message", text("assistant", s))
		}
	}
	if events {
		steps = append(steps, "line", obj("type", "system", "subtype", "init", "apiKeySource", "none (demo)", "cwd", cwd,
			"session_id", sid, "model", DemoModel, "permissionMode", "default"))
		event("type", "user", "message", text("user", prompt))
	}
	answer := func(s string) {
		if events {
			event("type", "result", "subtype", "success", "is_error", false, "result", s)
		} else {
			steps = append(steps, "line", s)
		}
	}
	switch words := demoWords(prompt); {
	case slices.Contains(words, "hang"):
		say("[demo] Hanging now, as a stuck agent does: nothing more will come.")
		return append(steps, "err", "cursor-agent (demo): hanging now, as a stuck agent does; the wrapper stops it after idle_timeout (60s; --idle-timeout 10s or CURSOR_WRAP_IDLE_TIMEOUT=10s shortens it)", "hang")
	case slices.Contains(words, "ask") || slices.Contains(words, "question"):
		say("[demo] Now a question that only a person can answer, and a wait for the answer on the terminal.")
		steps = append(steps, "err-raw", "[demo] Apply these changes? [y/N] ", "wait-tty")
		answer("[demo] Answered: nothing was changed.")
		return steps
	}
	say("[demo] This is cursor-wrap's demo agent, not Cursor's: it reads no code and changes nothing. It runs one harmless tool call, which the wrapper follows.")
	const callID = "demo_call_1"
	call := obj("args", json.RawMessage(obj("command", "echo 'a tool call of the demo agent'", "timeout", 30000)))
	done := obj("args", json.RawMessage(obj("command", "echo 'a tool call of the demo agent'", "timeout", 30000)),
		"result", json.RawMessage(obj("success", json.RawMessage(obj("exitCode", 0, "stdout", "a tool call of the demo agent\n", "stderr", "")))))
	if events {
		event("type", "tool_call", "subtype", "started", "call_id", callID, "tool_call", json.RawMessage(obj("shellToolCall", json.RawMessage(call))))
	}
	steps = append(steps, "sleep", "2s")
	if events {
		event("type", "tool_call", "subtype", "completed", "call_id", callID, "tool_call", json.RawMessage(obj("shellToolCall", json.RawMessage(done))))
	}
	final := "[demo] Done, and nothing was changed: this was cursor-wrap's demo agent, not Cursor's cursor-agent, answering \"" +
		words.FirstLine(prompt, 80) + "\". " + demoTried
	say(final)
	answer(final)
	return steps
}

// obj is a JSON object of its key and value pairs, in their order.
func obj(kv ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		v, _ := json.Marshal(kv[i+1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// demoWords are the prompt's words, in lower case.
func demoWords(prompt string) []string {
	return strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool { return !unicode.IsLetter(r) })
}
