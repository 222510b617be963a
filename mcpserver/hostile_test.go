package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/job"
)

// Secrets the agent knows, in the three shapes the session log masks: a
// key by its shape, the agent's --api-key, and a token in a variable whose
// name says it is one.
const (
	skKey   = "sk-proj-ABCDEFGHIJKLMNOPQRSTUV0123"
	apiKey  = "key_live_0123456789abcdef"
	ghToken = "ghp_0123456789abcdefABCDEFabcdef0123"
)

// TestSecretsNeverReachTheClient runs an agent whose tool command holds
// secrets (and an escape sequence), through run_agent and through
// start_agent and wait_agent, with progress, a warning, a hang and its
// partial output: no frame the client receives holds a secret.
func TestSecretsNeverReachTheClient(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) {
		c.WarnBefore = 1500 * time.Millisecond
		c.ToolGrace = time.Second
	})
	h.extraArgs = []string{"--api-key", apiKey}
	h.extraEnv = []string{"GITHUB_TOKEN=" + ghToken}
	command := fmt.Sprintf("deploy --token %s --api-key %s && npm test --key %s \x1b]0;owned\x07", ghToken, apiKey, skKey)
	started, _ := json.Marshal(map[string]any{"type": "tool_call", "subtype": "started", "call_id": "c1",
		"tool_call": map[string]any{"shellToolCall": map[string]any{"args": map[string]any{"command": command, "timeout": 2000}}}})
	agent := steps("line", initLine, "err", "using "+skKey+" and "+ghToken, "line", `{"type":"assistant","text":"key `+apiKey+`"}`,
		"line", string(started), "hang")

	var viaRun failure
	h.run("run", map[string]any{"prompt": agent, "idle_timeout": "3s"}, &viaRun)
	st := h.start(map[string]any{"prompt": agent, "idle_timeout": "3s"})
	var reports []report
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); {
		var r report
		h.tool("wait_agent", "wait", map[string]any{"run_id": st.RunID, "wait": 2}, &r)
		reports = append(reports, r)
		if r.ended() {
			break
		}
	}
	var list sessionList
	h.tool("agent_sessions", "", nil, &list)

	last := reports[len(reports)-1]
	if viaRun.Code != codeTimedOut || last.Code != codeTimedOut || last.Reason == nil || len(last.Reason.OpenCalls) != 1 {
		t.Fatalf("the runs did not end as tool hangs: %+v, %+v", viaRun, last)
	}
	if got := last.Reason.OpenCalls[0].Command; got != "deploy --token [REDACTED] --api-key [REDACTED] && npm test --key sk-[REDACTED] ]0;owned" || strings.ContainsRune(got, 0x1b) {
		t.Errorf("open call's command %q", got)
	}
	if ev := toolEvents(reports); len(ev) == 0 || !strings.Contains(ev[0], "[REDACTED]") {
		t.Errorf("tool calls in the waits: %q", ev)
	}
	h.mu.Lock()
	var texts []string
	for _, w := range h.warnings {
		texts = append(texts, w.Message)
	}
	h.mu.Unlock()
	warnings := len(texts)
	progress := append(h.progressOf("run"), h.progressOf("wait")...)
	for _, r := range reports {
		texts = append(texts, r.Phase)
	}
	if warnings < 2 || !slices.ContainsFunc(progress, func(s string) bool { return strings.Contains(s, "deploy --token [REDACTED]") }) {
		t.Errorf("%d warnings; progress %q", warnings, progress)
	}
	for _, p := range append(progress, texts...) {
		if strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Errorf("progress, a warning or a phase holds a control character: %q", p)
		}
	}
	sent := h.sent()
	for _, secret := range []string{skKey, apiKey, ghToken} {
		if i := bytes.Index(sent, []byte(secret)); i >= 0 {
			t.Errorf("the client received %q: …%s…", secret, sent[max(i-200, 0):min(i+100, len(sent))])
		}
	}
	if n := bytes.Count(sent, []byte("[REDACTED]")); n < 10 {
		t.Errorf("only %d masks in what the client received", n)
	}
}

// TestPromptIsAPrompt: a prompt that looks like a flag reaches the agent
// as its prompt, after "--", and the caller's workspace stays; through
// job.Resolve as the server uses it, with a cursor-agent that prints its
// command line.
func TestPromptIsAPrompt(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cursor-agent")
	script := fmt.Sprintf("#!/bin/sh\nFAKEAGENT_STEPS='%s' GORACE=atexit_sleep_ms=0 exec '%s' %s \"$@\"\n", steps("args", "line", answerLine), self, fakeagent.Subcommand)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarnessResolve(t, legacyProtocol, func(c *config.Config) { c.Agent, c.AgentBin = "cursor", bin }, job.Resolve)
	ws := t.TempDir()
	for _, prompt := range []string{"--workspace=/", "--resume=X", "--output-format=text", "-p"} {
		var got success
		if res := h.run("", map[string]any{"prompt": prompt, "workspace": ws}, &got); res.IsError {
			t.Fatalf("%s: %s", prompt, text(res, 0))
		}
		argv := loggedArgv(t, got.LogPath)
		ok := len(argv) >= 2 && slices.Equal(argv[len(argv)-2:], []string{"--", prompt})
		if i := slices.Index(argv, "--workspace"); i < 0 || i+1 >= len(argv) || argv[i+1] != ws {
			ok = false
		}
		if !ok {
			t.Errorf("prompt %q: the agent got %q; want the workspace %s and -- before the prompt, last", prompt, argv, ws)
		}
	}
}

// loggedArgv returns the argv the fake agent's args step printed, from a
// session log.
func loggedArgv(t *testing.T, path string) []string {
	t.Helper()
	for _, r := range records(t, path) {
		var ev struct {
			Type string
			Argv []string
		}
		if raw, _ := r["raw"].(string); json.Unmarshal([]byte(raw), &ev) == nil && ev.Type == "args" {
			return ev.Argv
		}
	}
	t.Fatalf("no args event in %s", path)
	return nil
}

// TestFrameReader feeds the reading filter good and bad frames: the good
// ones pass to the SDK as they are, each bad one gets its JSON-RPC error.
func TestFrameReader(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", maxFrame+10)
	in := strings.Join([]string{
		`garbage`,
		`{"id":4}`,
		`{"jsonrpc":"2.0","id":"a","method":"ping"}  ` + "\r",
		`[1,2]`,
		long,
		``,
		`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		`[]`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
		`"just a string"`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	f := newFrameReader(io.NopCloser(strings.NewReader(in)), &frameWriter{w: nopWriteCloser{&out}}, discard)
	passed, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"jsonrpc":"2.0","id":"a","method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"}`,
	}, "\n") + "\n"
	if string(passed) != want {
		t.Errorf("passed on:\n%s\nwant:\n%s", passed, want)
	}
	type response struct {
		JSONRPC string
		ID      any
		Error   struct {
			Code    int
			Message string
		}
	}
	var got []string
	for line := range bytes.Lines(out.Bytes()) {
		var r response
		if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
			t.Fatalf("response %q: %v", line, err)
		}
		got = append(got, fmt.Sprintf("%v %d", r.ID, r.Error.Code))
	}
	wantErrs := []string{"<nil> -32700", "4 -32600", "<nil> -32600", "<nil> -32600", "<nil> -32600", "<nil> -32600", "<nil> -32600", "<nil> -32600"}
	if !slices.Equal(got, wantErrs) {
		t.Errorf("responses %q, want %q", got, wantErrs)
	}

	// A batch is refused before initialize, in the protocols clients speak
	// today, and when the version is not spelled as the SDK reads it.
	batch := `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	for _, init := range []string{"", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"ProtocolVersion":"2025-03-26"}}`} {
		out.Reset()
		f = newFrameReader(io.NopCloser(strings.NewReader(init+"\n"+batch+"\n")), &frameWriter{w: nopWriteCloser{&out}}, discard)
		if passed, _ = io.ReadAll(f); bytes.Contains(passed, []byte("[")) || !bytes.Contains(out.Bytes(), []byte("batches are not part of MCP")) {
			t.Errorf("a batch after %q: passed %s, answered %s", init, passed, out.Bytes())
		}
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

var discard = slog.New(slog.DiscardHandler)

// FuzzFrameReader: whatever the client sends, the SDK gets only lines it
// can read, and each refused line gets one JSON-RPC error.
func FuzzFrameReader(f *testing.F) {
	for _, seed := range []string{
		"garbage\n",
		`{"id":4}` + "\n",
		"[1,2]\n",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n",
		`{"jsonrpc":"2.0","id":"a","method":"ping"}` + " \r\n\n\n" + `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n" + `"x"` + "\nnull\n[]\n{}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		r := newFrameReader(io.NopCloser(bytes.NewReader(in)), &frameWriter{w: nopWriteCloser{&out}}, discard)
		passed, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		for line := range bytes.Lines(passed) {
			lines++
			line = bytes.TrimSuffix(line, []byte("\n"))
			var batch []json.RawMessage
			if json.Unmarshal(line, &batch) != nil {
				batch = []json.RawMessage{line}
			}
			for _, m := range batch {
				if _, err := jsonrpc.DecodeMessage(m); err != nil {
					t.Errorf("passed on %q: %v", line, err)
				}
			}
		}
		for line := range bytes.Lines(out.Bytes()) {
			lines++
			var resp struct {
				JSONRPC string
				Error   struct{ Code int }
			}
			if err := json.Unmarshal(line, &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error.Code != codeParseError && resp.Error.Code != codeInvalidRequest {
				t.Errorf("response %q: %v", line, err)
			}
		}
		given := 0
		for line := range bytes.Lines(in) {
			if len(bytes.TrimSpace(line)) > 0 {
				given++
			}
		}
		if lines != given {
			t.Errorf("%d frames passed or answered for %d lines", lines, given)
		}
	})
}

// TestEveryAgentsAnswer: run_agent returns the final answer of every
// agent, wherever its stream puts it (Codex, Gemini CLI and OpenCode put it
// on events before the terminal one). Each agent is its real capture,
// replayed by the fake agent behind the agent's own command name.
func TestEveryAgentsAnswer(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for agent, capture := range map[string]string{"codex": "codex-A.jsonl", "gemini": "gemini-A.jsonl", "opencode": "opencode-A.jsonl", "claude": "claude-A.jsonl"} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			path, _ := filepath.Abs(filepath.Join("..", "stream", "testdata", "agents", capture))
			bin := filepath.Join(t.TempDir(), agent)
			script := fmt.Sprintf("#!/bin/sh\nFAKEAGENT_STEPS='%s' GORACE=atexit_sleep_ms=0 exec '%s' %s \"$@\"\n", steps("replay", path, "1000000"), self, fakeagent.Subcommand)
			if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			h := newHarnessResolve(t, legacyProtocol, func(c *config.Config) { c.Agent, c.AgentBin = agent, bin }, job.Resolve)
			res := h.run("", map[string]any{"prompt": "say hello"}, &success{})
			if res.IsError || text(res, 0) != "Hello from the mock model." {
				t.Errorf("%s answered %q", agent, text(res, 0))
			}
		})
	}
}
