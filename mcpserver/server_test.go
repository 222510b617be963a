package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// TestMain re-executes the test binary as the fake agent when asked to.
func TestMain(m *testing.M) {
	if fakeagent.Is(os.Args[1:]) {
		os.Exit(fakeagent.Main(os.Args[1:]))
	}
	if err := ptyproxy.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

const (
	initLine   = `{"type":"system","subtype":"init","session_id":"s-1"}`
	answerLine = `{"type":"result","subtype":"success","session_id":"s-1","result":"All tests pass."}`
	toolStart  = `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"npm test","timeout":100}}}}`
	toolEnd    = `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{}}}}`
)

// harness is a server and a client over a pair of pipes, as stdio would
// be. The prompt of a call is the fake agent's steps, as a JSON array.
type harness struct {
	t      *testing.T
	srv    *Server
	live   *config.Live
	cs     *mcp.ClientSession
	logDir string
	served chan error
	toSrv  *io.PipeWriter // the server's stdin
	once   sync.Once
	meta   mcp.Meta // added to each call's _meta

	mu       sync.Mutex
	progress map[any][]string // messages by progress token
	warnings []warning
	launches []job.Request
	frames   bytes.Buffer // every byte the server sent
	// The agent's command gets these arguments and environment besides.
	extraArgs, extraEnv []string
}

// lockedWriter is the harness's record of the server's frames.
type lockedWriter struct{ h *harness }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.h.mu.Lock()
	defer w.h.mu.Unlock()
	return w.h.frames.Write(p)
}

// sent returns every byte the server has sent the client so far.
func (h *harness) sent() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return bytes.Clone(h.frames.Bytes())
}

// legacyProtocol is the protocol version the clients of today speak
// (Claude Code, the Inspector); the SDK's client would use a newer one.
const legacyProtocol = "2025-11-25"

// newHarness starts a server whose config tune adjusts, and a client that
// speaks legacyProtocol.
func newHarness(t *testing.T, tune func(*config.Config)) *harness {
	t.Helper()
	return newHarnessVersion(t, legacyProtocol, tune)
}

func newHarnessVersion(t *testing.T, version string, tune func(*config.Config)) *harness {
	t.Helper()
	return newHarnessResolve(t, version, tune, nil)
}

// newHarnessResolve starts a harness whose runs are resolved by resolve:
// nil for the harness's own, which runs the prompt as the fake agent's
// steps.
func newHarnessResolve(t *testing.T, version string, tune func(*config.Config), resolve func(config.Config, job.Request) (job.Command, error)) *harness {
	t.Helper()
	cfg := config.DefaultConfig()
	cfg.LogDir = t.TempDir()
	cfg.IdleTimeout = 5 * time.Second
	cfg.ExitGrace = time.Second
	cfg.KillGrace = 500 * time.Millisecond
	cfg.TickInterval = time.Second
	cfg.ActivityProbe = false
	cfg.MCP.MinIdleTimeout = 50 * time.Millisecond
	cfg.MCP.MinHardTimeout = 50 * time.Millisecond
	if tune != nil {
		tune(&cfg)
	}
	h := &harness{t: t, logDir: cfg.LogDir, progress: map[any][]string{}, served: make(chan error, 1)}
	h.live = config.NewLive(cfg)
	if resolve == nil {
		resolve = h.resolve
	}
	h.srv = New(Options{Live: h.live, Resolve: resolve})
	srvIn, toSrv := io.Pipe()
	fromSrv, srvOut := io.Pipe()
	h.toSrv = toSrv
	go func() { h.served <- h.srv.Serve(context.Background(), srvIn, srvOut) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.progress[r.Params.ProgressToken] = append(h.progress[r.Params.ProgressToken], r.Params.Message)
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			var w warning
			b, _ := json.Marshal(r.Params.Data)
			if r.Params.Level != "warning" || json.Unmarshal(b, &w) != nil {
				t.Errorf("unexpected log message %+v", r.Params)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			h.warnings = append(h.warnings, w)
		},
	})
	tee := struct {
		io.Reader
		io.Closer
	}{io.TeeReader(fromSrv, lockedWriter{h}), fromSrv}
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: tee, Writer: toSrv}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	h.cs = cs
	t.Cleanup(h.disconnect)
	return h
}

// disconnect closes the server's stdin, as a client that goes away does,
// and waits for the server to stop.
func (h *harness) disconnect() {
	h.t.Helper()
	h.once.Do(func() {
		_ = h.toSrv.Close()
		select {
		case <-h.served:
		case <-time.After(10 * time.Second):
			h.t.Error("the server did not stop after the client went")
		}
		_ = h.cs.Close()
	})
}

// resolve runs the test binary as the fake agent, with the prompt's steps
// as its arguments.
func (h *harness) resolve(_ config.Config, l job.Request) (job.Command, error) {
	h.mu.Lock()
	h.launches = append(h.launches, l)
	h.mu.Unlock()
	var steps []string
	if err := json.Unmarshal([]byte(l.Prompt), &steps); err != nil {
		return job.Command{}, fmt.Errorf("%w: the prompt is not a list of steps: %v", job.ErrInvalid, err)
	}
	self, err := os.Executable()
	if err != nil {
		return job.Command{}, err
	}
	args := append([]string{fakeagent.Subcommand, "--print", "--output-format", "stream-json"}, h.extraArgs...)
	if l.Resume != "" {
		args = append(args, "--resume", l.Resume)
	}
	// The race runtime otherwise sleeps a second at exit.
	env := append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	env = append(env, h.extraEnv...)
	return job.Command{Profile: stream.Cursor, Path: self, Args: append(args, steps...), Env: env, Dir: l.Workspace, Mode: stream.Events, Direct: true}, nil
}

func steps(s ...string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// call calls run_agent with args (the steps go in as the prompt) and a
// progress token when token is not "".
func (h *harness) call(ctx context.Context, token string, args map[string]any) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: "run_agent", Arguments: args, Meta: maps.Clone(h.meta)}
	if token != "" {
		p.SetProgressToken(token)
	}
	return h.cs.CallTool(ctx, p)
}

// run calls run_agent and decodes the structured content into into.
func (h *harness) run(token string, args map[string]any, into any) *mcp.CallToolResult {
	h.t.Helper()
	res, err := h.try(token, args, into)
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// try is run for goroutines other than the test's.
func (h *harness) try(token string, args map[string]any, into any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.call(ctx, token, args)
	if err != nil {
		return nil, fmt.Errorf("run_agent: %w", err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, into); err != nil {
		return nil, fmt.Errorf("structured content %s: %w", b, err)
	}
	return res, nil
}

func (h *harness) launched() []job.Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.launches)
}

func (h *harness) progressOf(token string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.progress[token])
}

func text(res *mcp.CallToolResult, i int) string {
	if i >= len(res.Content) {
		return ""
	}
	if tc, ok := res.Content[i].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// records reads a session log.
func records(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range bytes.Lines(b) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func record(recs []map[string]any, msg string) map[string]any {
	for _, r := range recs {
		if r["msg"] == msg {
			return r
		}
	}
	return nil
}

// waitFor polls the log dir until a session log holds a line matching
// pick, and returns what pick made of it.
func waitFor[T any](t *testing.T, dir string, pick func(map[string]any) (T, bool)) T {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, p := range paths {
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var m map[string]any
				if json.Unmarshal(sc.Bytes(), &m) == nil {
					if v, ok := pick(m); ok {
						f.Close()
						return v
					}
				}
			}
			f.Close()
		}
	}
	var zero T
	t.Fatalf("nothing in %s matched", dir)
	return zero
}

// childPids returns the pids of the fake agents' escaped children that
// the session logs in dir hold so far.
func childPids(dir string) []int {
	var pids []int
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		for line := range bytes.Lines(b) {
			var rec struct{ Raw string }
			var c struct {
				Type string
				Pid  int
			}
			if json.Unmarshal(line, &rec) == nil && json.Unmarshal([]byte(rec.Raw), &c) == nil && c.Type == "child" {
				pids = append(pids, c.Pid)
			}
		}
	}
	return pids
}

// waitChildren waits until the session logs in dir name n children.
func waitChildren(t *testing.T, dir string, n int) []int {
	t.Helper()
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if pids := childPids(dir); len(pids) >= n {
			return pids
		}
	}
	t.Fatalf("fewer than %d children logged in %s", n, dir)
	return nil
}

// dead fails the test unless pid exits within a few seconds (a zombie
// not yet reaped counts as exited). A process killed is gone by then: the
// wait covers its exit itself, which for a race-instrumented binary on a
// busy machine can take a while after the kill.
func dead(t *testing.T, pid int) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if _, after, ok := bytes.Cut(b, []byte(") ")); ok && len(after) > 0 && after[0] == 'Z' {
			return
		}
		if err != nil {
			// No /proc (macOS): ps prints the state.
			if out, err := exec.Command("ps", "-o", "stat=", "-p", fmt.Sprint(pid)).Output(); err == nil && strings.HasPrefix(strings.TrimSpace(string(out)), "Z") {
				return
			}
		}
	}
	t.Errorf("pid %d is still running", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL) // Leave nothing behind.
}

func TestListTools(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	res, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	if len(tools) != 5 {
		t.Fatalf("tools: %v", tools)
	}
	schema := func(name string) (required []string, props map[string]any) {
		tool := tools[name]
		if tool == nil {
			t.Fatalf("no tool %s", name)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Required   []string
			Properties map[string]any
		}
		_ = json.Unmarshal(b, &s)
		return s.Required, s.Properties
	}
	for _, name := range []string{"run_agent", "start_agent"} {
		required, props := schema(name)
		if !slices.Equal(required, []string{"prompt"}) {
			t.Errorf("%s: required = %v, want [prompt]", name, required)
		}
		for _, p := range []string{"prompt", "workspace", "model", "agent", "resume", "idle_timeout", "hard_timeout"} {
			if props[p] == nil {
				t.Errorf("%s has no %s argument", name, p)
			}
		}
	}
	if required, props := schema("wait_agent"); !slices.Equal(required, []string{"run_id"}) || props["wait"] == nil {
		t.Errorf("wait_agent: required %v, properties %v", required, props)
	}
	if required, _ := schema("cancel_agent"); !slices.Equal(required, []string{"run_id"}) {
		t.Errorf("cancel_agent: required %v", required)
	}
	// A model reading the descriptions is told which tool fits a long task.
	for name, want := range map[string]string{
		"run_agent":   "For anything that may take over a minute (most coding tasks), use start_agent and wait_agent instead.",
		"start_agent": "Use this, not run_agent, for anything that may take over a minute",
		"wait_agent":  "default 25, at most 50",
	} {
		if !strings.Contains(tools[name].Description, want) {
			t.Errorf("%s's description lacks %q", name, want)
		}
	}
	if !strings.Contains(h.cs.InitializeResult().Instructions, "start it with start_agent and call wait_agent") {
		t.Errorf("instructions: %q", h.cs.InitializeResult().Instructions)
	}
}

func TestSuccess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ws := t.TempDir()
	var got success
	res := h.run("tok", map[string]any{
		"prompt":    steps("line", initLine, "line", toolStart, "line", toolEnd, "err", "a warning", "line", answerLine),
		"workspace": ws, "model": "gpt-5", "agent": "cursor",
	}, &got)
	if res.IsError || text(res, 0) != "All tests pass." {
		t.Fatalf("result %v: %q", res.IsError, text(res, 0))
	}
	if !strings.Contains(text(res, 1), "session s-1") {
		t.Errorf("no bookkeeping line: %q", text(res, 1))
	}
	if got.SessionID != "s-1" || got.ExitStatus != 0 || got.ToolCalls != 1 || got.DurationMS <= 0 || got.IdleTimeout != "5s" || got.HardTimeout != "4h0m0s" {
		t.Errorf("structured content %+v", got)
	}
	if l := h.launched()[0]; l.Workspace != ws || l.Model != "gpt-5" || l.Agent != "cursor" {
		t.Errorf("launch %+v", l)
	}
	recs := records(t, got.LogPath)
	cmd, start := record(recs, "command"), record(recs, "start")
	if cmd == nil || cmd["via"] != "mcp" || cmd["agent"] != "cursor" || start == nil || start["dir"] != ws {
		t.Errorf("log: command %v, start %v", cmd, start)
	}
	if exit := record(recs, "exit"); exit == nil || exit["cause"] != "exited" || exit["status"] != 0.0 {
		t.Errorf("exit record %v", exit)
	}
	if p := h.progressOf("tok"); len(p) == 0 || p[0] != "starting the agent" && p[0] != "starting" {
		t.Errorf("progress %q", p)
	}
}

func TestIdleHang(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	var got failure
	start := time.Now()
	res := h.run("", map[string]any{
		"prompt":       steps("line", initLine, "err", "model stream stalled", "setsid-child", "hang"),
		"idle_timeout": "2s", // Longer than a busy machine takes to start the agent.
	}, &got)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	if !res.IsError || got.Code != codeIdle || got.Kind != "idle" || got.SessionID != "s-1" || got.ExitStatus != 124 {
		t.Fatalf("result %+v", got)
	}
	if got.Reason == nil || got.Reason.Kind != watchdog.KindIdle || got.Reason.Threshold != 2*time.Second {
		t.Errorf("reason %+v", got.Reason)
	}
	p := got.Partial
	if p == nil || len(p.LastEvents) != 2 || p.LastEvents[0] != initLine || p.EventsCount != 2 ||
		!strings.Contains(p.StderrTail, "model stream stalled") || p.LastActivityAt == "" {
		t.Fatalf("partial %+v", p)
	}
	var child struct{ Pid int }
	_ = json.Unmarshal([]byte(p.LastEvents[1]), &child)
	dead(t, child.Pid)
	if len(got.Suggestions) < 3 || !strings.Contains(got.Suggestions[0], `resume="s-1"`) {
		t.Errorf("suggestions %q", got.Suggestions)
	}
	for _, want := range []string{"The agent hung: no output for 2", "(idle timeout 2s)", `resume="s-1"`, got.LogPath} {
		if !strings.Contains(text(res, 0), want) {
			t.Errorf("text %q lacks %q", text(res, 0), want)
		}
	}
	if r := record(records(t, got.LogPath), "hang_detected"); r == nil {
		t.Error("no hang_detected record")
	}
}

func TestToolHang(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.ToolGrace = 100 * time.Millisecond })
	var got failure
	// The idle timeout is long: a tool call that runs is never idle, and
	// the agent may be slow to start on a busy machine.
	h.run("", map[string]any{"prompt": steps("line", initLine, "line", toolStart, "hang"), "idle_timeout": "5s"}, &got)
	if got.Code != codeTimedOut || got.Kind != "tool" || got.Reason == nil || len(got.Reason.OpenCalls) != 1 {
		t.Fatalf("result %+v", got)
	}
	c := got.Reason.OpenCalls[0]
	if c.Command != "npm test" || c.Timeout != 100*time.Millisecond || c.Elapsed < c.Budget {
		t.Errorf("open call %+v", c)
	}
	if !strings.Contains(strings.Join(got.Suggestions, "\n"), `"npm test" ran past its deadline`) {
		t.Errorf("suggestions %q", got.Suggestions)
	}
}

func TestHardTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	var got failure
	h.run("", map[string]any{"prompt": steps("line", initLine, "hang"), "hard_timeout": "400ms"}, &got)
	if got.Code != codeTimedOut || got.Kind != "deadline" || got.Reason == nil || got.Reason.Threshold != 400*time.Millisecond {
		t.Fatalf("result %+v", got)
	}
	if !strings.HasPrefix(got.Message, "The agent was stopped: the attempt timed out at its hard timeout of 400ms") {
		t.Errorf("message %q", got.Message)
	}
	if !strings.Contains(strings.Join(got.Suggestions, "\n"), "longer hard_timeout (at most 4h0m0s)") {
		t.Errorf("suggestions %q", got.Suggestions)
	}
}

func TestExitWithoutResult(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	var got failure
	res := h.run("", map[string]any{"prompt": steps("line", initLine, "err", "Error: not logged in", "exit", "3")}, &got)
	if got.Code != codeExit || got.Kind != "exit" || got.ExitStatus != 3 || got.Reason != nil || got.SessionID != "s-1" {
		t.Fatalf("result %+v", got)
	}
	if want := `The agent exited with status 3 without giving a result. Its last line on stderr: "Error: not logged in".`; !strings.HasPrefix(text(res, 0), want) {
		t.Errorf("text %q, want it to start %q", text(res, 0), want)
	}
	if got.Partial.StderrTail != "Error: not logged in\n" {
		t.Errorf("stderr tail %q", got.Partial.StderrTail)
	}
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	file := filepath.Join(t.TempDir(), "f")
	_ = os.WriteFile(file, nil, 0o600)
	for _, args := range []map[string]any{
		{"prompt": " "},
		{"prompt": steps("exit", "0"), "idle_timeout": "soon"},
		{"prompt": steps("exit", "0"), "hard_timeout": "-1m"},
		{"prompt": steps("exit", "0"), "workspace": file},
		{"prompt": steps("exit", "0"), "resume": "--force"},
		{"prompt": "not steps"}, // Prepare's ErrInvalid
	} {
		var got failure
		res := h.run("", args, &got)
		if !res.IsError || got.Code != codeInvalid {
			t.Errorf("%v: %+v", args, got)
		}
	}
	if len(h.launched()) != 1 {
		t.Errorf("prepared %d launches, want only the last", len(h.launches))
	}
}

func TestResumePassesThrough(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	var got success
	// The restart prompt is no list of steps, so nothing runs.
	h.run("", map[string]any{"prompt": "", "resume": "s-1"}, &failure{})
	if l := h.launched()[0]; l.Resume != "s-1" || l.Prompt != "continue" {
		t.Errorf("launch %+v: an empty prompt with resume should be the restart prompt", l)
	}
	h.run("", map[string]any{"prompt": steps("line", answerLine), "resume": "s-1"}, &got)
	if r := record(records(t, got.LogPath), "command"); !slices.Contains(r["argv"].([]any), any("--resume")) {
		t.Errorf("argv %v", r["argv"])
	}
}

func TestClamping(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) {
		// The minimum is longer than a busy machine takes to start the agent.
		c.MCP.MinIdleTimeout, c.MCP.MaxIdleTimeout = 2*time.Second, 3*time.Second
		c.MCP.MaxHardTimeout = time.Minute
	})
	var got success
	res := h.run("", map[string]any{"prompt": steps("line", initLine, "line", answerLine), "idle_timeout": "1ms", "hard_timeout": "100h"}, &got)
	want := []config.Clamp{
		{Name: "idle_timeout", Requested: "1ms", Applied: "2s", Bound: "mcp.min_idle_timeout"},
		{Name: "hard_timeout", Requested: "100h0m0s", Applied: "1m0s", Bound: "mcp.max_hard_timeout"},
	}
	if !slices.Equal(got.Clamped, want) || got.IdleTimeout != "2s" || got.HardTimeout != "1m0s" {
		t.Errorf("clamped %+v, timeouts %s %s", got.Clamped, got.IdleTimeout, got.HardTimeout)
	}
	if !strings.Contains(text(res, 1), "idle_timeout 1ms was clamped to 2s") {
		t.Errorf("text %q", text(res, 1))
	}
	// The config's idle_timeout (5s) is over this server's maximum.
	h.run("", map[string]any{"prompt": steps("line", answerLine)}, &got)
	if len(got.Clamped) != 1 || got.Clamped[0] != (config.Clamp{Name: "idle_timeout", Requested: "5s", Applied: "3s", Bound: "mcp.max_idle_timeout", FromConfig: true}) {
		t.Errorf("clamped %+v", got.Clamped)
	}
}

// TestWarningBeforeKill checks the warning a client gets before a hang
// kill: by default with the protocol clients speak today, and when a call
// asks for it with the newer one, where logging is per request.
func TestWarningBeforeKill(t *testing.T) {
	t.Parallel()
	for _, version := range []string{legacyProtocol, mcp.SupportedProtocolVersions()[0]} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			h := newHarnessVersion(t, version, func(c *config.Config) { c.WarnBefore = time.Second })
			if version != legacyProtocol {
				h.meta = mcp.Meta{mcp.MetaKeyLogLevel: "warning"}
			}
			var got failure
			h.run("tok", map[string]any{"prompt": steps("line", initLine, "hang"), "idle_timeout": "2s"}, &got)
			if got.Code != codeIdle {
				t.Fatalf("result %+v", got)
			}
			h.mu.Lock()
			warnings := slices.Clone(h.warnings)
			h.mu.Unlock()
			// An agent slow to start on a busy machine is warned about
			// once before its first line, too.
			var after []warning
			for _, w := range warnings {
				if w.SessionID == "s-1" {
					after = append(after, w)
				}
			}
			if len(after) != 1 {
				t.Fatalf("%d warnings after the session started, want 1: %+v", len(after), warnings)
			}
			w := after[0]
			if w.RunID != got.RunID || w.LogPath == "" || !strings.Contains(w.Message, "stopped in") || w.DueInMS > 1000 {
				t.Errorf("warning %+v", w)
			}
			if p := h.progressOf("tok"); !slices.ContainsFunc(p, func(s string) bool { return strings.Contains(s, "unless it speaks") }) {
				t.Errorf("no progress for the warning: %q", p)
			}
		})
	}
}

func TestCancelKillsTree(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.call(ctx, "", map[string]any{"prompt": steps("line", initLine, "ignore-term", "setsid-child", "hang")})
		done <- err
	}()
	pid := waitChildren(t, h.logDir, 1)[0]
	start := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: %v", err)
	}
	exit := waitFor(t, h.logDir, func(m map[string]any) (map[string]any, bool) { return m, m["msg"] == "exit" })
	if took := time.Since(start); exit["cause"] != "cancelled" || took > 3*time.Second {
		t.Errorf("exit record %v after %v", exit, took)
	}
	dead(t, pid)
}

func TestDisconnectKillsEveryAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for range 2 {
		go func() {
			_, _ = h.call(context.Background(), "", map[string]any{"prompt": steps("line", initLine, "setsid-child", "hang")})
		}()
	}
	pids := waitChildren(t, h.logDir, 2)
	h.disconnect()
	for _, pid := range pids {
		dead(t, pid)
	}
}

func TestConcurrencyBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config) { c.MCP.MaxConcurrent = 1 })
	var wg sync.WaitGroup
	results := make([]success, 2)
	for i, token := range []string{"first", "second"} {
		if i == 1 {
			// The first holds the only slot before the second arrives.
			waitFor(t, h.logDir, func(m map[string]any) (bool, bool) { return true, m["msg"] == "start" })
		}
		wg.Go(func() {
			if _, err := h.try(token, map[string]any{"prompt": steps("line", initLine, "sleep", "1s", "line", answerLine)}, &results[i]); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	first, second := records(t, results[0].LogPath), records(t, results[1].LogPath)
	ended, _ := time.Parse(time.RFC3339Nano, record(first, "exit")["time"].(string))
	started, _ := time.Parse(time.RFC3339Nano, record(second, "start")["time"].(string))
	if started.Before(ended) {
		t.Errorf("the second agent started at %v, before the first ended at %v", started, ended)
	}
	if p := h.progressOf("second"); len(p) == 0 || !strings.HasPrefix(p[0], "queued: 1 of 1 agents running") {
		t.Errorf("second's progress %q", p)
	}
}

func TestReloadKeepsCallTimeouts(t *testing.T) {
	t.Parallel()
	var cfg config.Config
	h := newHarness(t, func(c *config.Config) { cfg = *c })
	done := make(chan success, 1)
	go func() {
		var got success
		if _, err := h.try("", map[string]any{"prompt": steps("line", initLine, "sleep", "1500ms", "line", answerLine), "idle_timeout": "3s"}, &got); err != nil {
			t.Error(err)
		}
		done <- got
	}()
	waitFor(t, h.logDir, func(m map[string]any) (bool, bool) { return true, m["msg"] == "event" })
	next := cfg
	next.IdleTimeout, next.ToolGrace = 100*time.Millisecond, time.Second
	h.live.Apply(next)
	got := <-done
	if got.SessionID != "s-1" {
		t.Fatalf("the reload cut the call short: %+v", got)
	}
	r := record(records(t, got.LogPath), "config_reloaded")
	if r == nil {
		t.Fatal("no config_reloaded record")
	}
	changed, _ := json.Marshal(r["changed"])
	pinned, _ := json.Marshal(r["pinned"])
	if !strings.Contains(string(changed), "tool_grace") || strings.Contains(string(changed), "idle_timeout") || !strings.Contains(string(pinned), "idle_timeout") {
		t.Errorf("config_reloaded changed %s pinned %s", changed, pinned)
	}
}

func TestAgentSessions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.run("", map[string]any{"prompt": steps("line", initLine, "line", answerLine)}, &success{})
	h.run("", map[string]any{"prompt": steps("line", `{"type":"system","subtype":"init","session_id":"s-2"}`, "hang"), "idle_timeout": "2s"}, &failure{})
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "agent_sessions", Arguments: map[string]any{"limit": 5}})
	if err != nil {
		t.Fatal(err)
	}
	var got sessionList
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &got)
	if len(got.Sessions) != 2 || got.LogDir != h.logDir {
		t.Fatalf("sessions %s", b)
	}
	newest, oldest := got.Sessions[0], got.Sessions[1]
	if newest.ID != "s-2" || newest.Outcome != "hung (idle)" || *newest.ExitStatus != 124 ||
		oldest.ID != "s-1" || oldest.Outcome != "ok" || oldest.DurationMS <= 0 {
		t.Errorf("sessions %s", b)
	}
	if !strings.Contains(text(res, 0), "s-2") {
		t.Errorf("text %q", text(res, 0))
	}
}
