package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/scripts/testenv"
)

// inspector is the MCP Inspector's CLI, pinned: the newest release that
// runs on the Node 20 of these machines (later ones need Node 22).
const inspector = "@modelcontextprotocol/inspector@0.15.0"

const answerLine = `{"type":"result","subtype":"success","session_id":"s-1","result":"All tests pass."}`

// mcpConfig writes a config file that lets calls ask for short timeouts.
func mcpConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[mcp]\nmin_idle_timeout = \"100ms\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMCPInspector serves `cursor-wrap mcp` to the official MCP Inspector
// CLI over real stdio pipes, with the fake agent as the agent: the tools
// are listed, a call is answered, a hang comes back as EIDLE, a background
// run starts (and ends with its server), and an unknown run_id is an
// error.
func TestMCPInspector(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npx"); err != nil {
		testenv.SkipOutsideCI(t, "npx is not installed, so the MCP Inspector cannot run: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "npm", "view", inspector, "version").CombinedOutput(); err != nil {
		testenv.SkipOutsideCI(t, "npm view %s failed (is the npm registry reachable?), so the MCP Inspector cannot run: %v\n%s", inspector, err, out)
	}
	cfg := mcpConfig(t)
	logDir := t.TempDir()
	// The server's own flags go after the Inspector's: its parser gives
	// everything from the first flag it does not know to the server.
	inspect := func(env string, args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		args = append([]string{"-y", inspector, "--cli"}, args...)
		args = append(args, wrapperBin, "mcp", "--agent-bin", agentBin, "--log-dir", logDir)
		cmd := exec.CommandContext(ctx, "npx", args...)
		cmd.Env = append(testEnv(), "CURSOR_WRAP_CONFIG="+cfg, env)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.Bytes(), stderr.Bytes())
		}
		var res map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("inspector output %q: %v", stdout.Bytes(), err)
		}
		return res
	}

	list, _ := json.Marshal(inspect("", "--method", "tools/list"))
	for _, name := range []string{"run_agent", "start_agent", "wait_agent", "cancel_agent", "agent_sessions"} {
		if !bytes.Contains(list, []byte(`"name":"`+name+`"`)) {
			t.Errorf("tools/list has no %s: %s", name, list)
		}
	}

	res := inspect(steps("line", initLine, "line", answerLine), "--tool-arg", "prompt=make the tests pass", "--tool-name", "run_agent", "--method", "tools/call")
	content, _ := res["content"].([]any)
	structured, _ := res["structuredContent"].(map[string]any)
	if len(content) == 0 || content[0].(map[string]any)["text"] != "All tests pass." || structured["session_id"] != "s-1" || res["isError"] == true {
		t.Errorf("success: %v", res)
	}

	res = inspect(steps("line", initLine, "hang"), "--tool-arg", "prompt=make the tests pass", "idle_timeout=2s", "--tool-name", "run_agent", "--method", "tools/call")
	structured, _ = res["structuredContent"].(map[string]any)
	if res["isError"] != true || structured["code"] != "EIDLE" || structured["kind"] != "idle" || structured["session_id"] != "s-1" {
		t.Errorf("hang: %v", res)
	}

	// The Inspector's CLI makes one call per server, so a background run
	// is started and then ends with its server, killed as the client goes.
	res = inspect(steps("line", initLine, "hang"), "--tool-arg", "prompt=make the tests pass", "--tool-name", "start_agent", "--method", "tools/call")
	structured, _ = res["structuredContent"].(map[string]any)
	if id, _ := structured["run_id"].(string); res["isError"] == true || !strings.HasPrefix(id, "run_") || structured["state"] != "running" {
		t.Errorf("start_agent: %v", res)
	}
	var causes []string
	paths, _ := filepath.Glob(filepath.Join(logDir, "*.jsonl"))
	for _, p := range paths {
		recs, _ := mcpRecords(p)
		for _, r := range recs {
			if r["msg"] == "exit" {
				causes = append(causes, fmt.Sprint(r["cause"]))
			}
		}
	}
	if slices.Sort(causes); !slices.Equal(causes, []string{"cancelled", "exited", "hung"}) {
		t.Errorf("exit causes in the logs %q: the background run should be cancelled with its server", causes)
	}
	res = inspect("", "--tool-arg", "run_id=run_nosuchrun", "--tool-name", "wait_agent", "--method", "tools/call")
	structured, _ = res["structuredContent"].(map[string]any)
	if res["isError"] != true || structured["code"] != "ENOENT" {
		t.Errorf("wait_agent with an unknown run_id: %v", res)
	}
}

// TestMCPStdio drives `cursor-wrap mcp` over its real stdin and stdout with
// the Go SDK's client: stdout holds nothing but JSON-RPC frames, the
// agent's argv is the one direct mode builds, and SIGTERM kills a running
// agent before the server exits 143.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logDir, ws := t.TempDir(), t.TempDir()
	// The agent answers while the file exists, and hangs once it is gone.
	once := filepath.Join(t.TempDir(), "hang-once")
	if err := os.WriteFile(once, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, wrapperBin, "mcp", "--agent-bin", agentBin, "--log-dir", logDir, "--config", mcpConfig(t))
	cmd.Env = append(testEnv(), steps("line", initLine, "args", "hang-once", once, "line", answerLine))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var frames bytes.Buffer
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, &frames)), Writer: stdin},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_agent", Arguments: map[string]any{"prompt": "fix it", "workspace": ws, "resume": "s-0"}})
	if err != nil || res.IsError {
		t.Fatalf("run_agent: %v %+v\nstderr:\n%s", err, res, stderr.Bytes())
	}
	var ok struct {
		LogPath string `json:"log_path"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &ok)
	argv := agentArgv(t, ok.LogPath)
	want := []string{"--print", "--output-format", "stream-json", "--force", "--model", "auto", "--workspace", ws, "--resume", "s-0", "--", "fix it"}
	if strings.Join(argv, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("agent argv %q, want %q", argv, want)
	}

	// A call that hangs for good, then SIGTERM.
	if err := os.Remove(once); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_agent", Arguments: map[string]any{"prompt": "hang"}})
	}()
	pid := agentPid(t, logDir, ok.LogPath)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("server exit: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("agent %d outlived the server", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = cs.Close() // Its reader is done with frames once it returns.
	sc := bufio.NewScanner(&frames)
	for sc.Scan() {
		var frame struct{ JSONRPC string }
		if json.Unmarshal(sc.Bytes(), &frame) != nil || frame.JSONRPC != "2.0" {
			t.Errorf("stdout holds a line that is no JSON-RPC frame: %q", sc.Bytes())
		}
	}
}

// agentArgv returns the argv the fake agent's args step printed.
func agentArgv(t *testing.T, logPath string) []string {
	t.Helper()
	recs, err := mcpRecords(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		var ev struct {
			Type string
			Argv []string
		}
		if raw, _ := r["raw"].(string); json.Unmarshal([]byte(raw), &ev) == nil && ev.Type == "args" {
			return ev.Argv
		}
	}
	t.Fatalf("no args event in %s", logPath)
	return nil
}

// agentPid waits for a session log other than skip to record the agent's
// start, and returns its pid.
func agentPid(t *testing.T, dir, skip string) int {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, p := range paths {
			recs, err := mcpRecords(p)
			if p == skip || err != nil {
				continue // Renamed since the glob: the next round sees it.
			}
			for _, r := range recs {
				if pid, ok := r["pid"].(float64); ok && r["msg"] == "start" {
					return int(pid)
				}
			}
		}
	}
	t.Fatal("the second agent never started")
	return 0
}

func mcpRecords(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
	var out []map[string]any
	for line := range bytes.Lines(data) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			out = append(out, m)
		}
	}
	return out, err
}

// TestMCPServerMissing runs cursor-wrap mcp with no cursor-wrap-mcp beside
// it or on PATH: a clear error and exit 127.
func TestMCPServerMissing(t *testing.T) {
	t.Parallel()
	lone := filepath.Join(t.TempDir(), "cursor-wrap")
	data, err := os.ReadFile(wrapperBin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(lone, data, 0o755)
	cmd := exec.Command(lone, "mcp")
	cmd.Env = append(testEnv(), "PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || !bytes.Contains(out, []byte("go install ./mcpserver/cmd/cursor-wrap-mcp")) {
		t.Errorf("exit %v: %s", err, out)
	}
}

// TestUnknownAgentName: an agent profile there is none of is a wrapper
// error, 125, for the wrapper command and the MCP server alike.
func TestUnknownAgentName(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--agent-bin", agentBin, "--log-dir", t.TempDir(), "--", "hello"},
		{"mcp", "--agent-bin", agentBin, "--log-dir", t.TempDir()},
	} {
		cmd := exec.Command(wrapperBin, args...)
		cmd.Env = append(testEnv(), "CURSOR_WRAP_AGENT=bogus")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 125 || !bytes.Contains(out, []byte(`unknown agent "bogus"`)) {
			t.Errorf("%v: exit %v: %s", args, err, out)
		}
	}
}

// rpcClient is a JSON-RPC client of `cursor-wrap mcp` over its real stdin
// and stdout, written by hand: it keeps every frame the server sends, and
// can send the server any bytes.
type rpcClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	logDir string
	exited chan error // the server's exit, once it has exited

	mu      sync.Mutex
	frames  [][]byte
	waiting map[string]chan rpcFrame // by the id's JSON
	seq     int
}

// rpcFrame is one JSON-RPC message from the server.
type rpcFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// mcpConfigWith writes a config file that lets calls ask for short
// timeouts, with more settings.
func mcpConfigWith(t *testing.T, settings, mcpTable string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(settings+"\n[mcp]\nmin_idle_timeout = \"100ms\"\n"+mcpTable+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serve starts `cursor-wrap mcp` with the fake agent as its agent (env
// holds its steps) and a config file, and initializes a session. The
// server is killed at the end of the test if it still runs.
func serve(t *testing.T, config string, env ...string) *rpcClient {
	t.Helper()
	return serveWith(t, []string{"--agent-bin", agentBin, "--config", config}, env...)
}

// serveWith starts `cursor-wrap mcp` with args and a log dir of its own,
// and initializes a session, as serve does.
func serveWith(t *testing.T, args []string, env ...string) *rpcClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	c := &rpcClient{t: t, logDir: t.TempDir(), stderr: &lockedBuffer{}, waiting: map[string]chan rpcFrame{}, exited: make(chan error, 1)}
	c.cmd = exec.CommandContext(ctx, wrapperBin, append([]string{"mcp", "--log-dir", c.logDir}, args...)...)
	c.cmd.Env = append(testEnv(), env...)
	c.cmd.Stderr = c.stderr
	c.stdin, _ = c.cmd.StdinPipe()
	stdout, _ := c.cmd.StdoutPipe()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		c.read(stdout)
	}()
	go func() {
		<-read
		c.exited <- c.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = c.stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(20 * time.Second):
			t.Errorf("the server did not exit 20s after its stdin closed\nstderr:\n%s", c.stderr)
			_ = c.cmd.Process.Kill()
		}
		cancel()
	})
	init := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "rpc-test", "version": "0"}})
	if init.Error != nil {
		t.Fatalf("initialize: %+v\nstderr:\n%s", init.Error, c.stderr)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

// read keeps every frame and hands responses to their callers.
func (c *rpcClient) read(stdout io.Reader) {
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var f rpcFrame
			if json.Unmarshal(line, &f) != nil {
				c.t.Errorf("stdout holds a line that is no JSON-RPC frame: %q", line)
			}
			c.mu.Lock()
			c.frames = append(c.frames, line)
			ch := c.waiting[string(f.ID)]
			delete(c.waiting, string(f.ID))
			c.mu.Unlock()
			if ch != nil && f.Method == "" {
				ch <- f
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes one message.
func (c *rpcClient) send(msg any) {
	b, _ := json.Marshal(msg)
	c.write(append(b, '\n'))
}

// write writes raw bytes to the server's stdin.
func (c *rpcClient) write(b []byte) {
	if _, err := c.stdin.Write(b); err != nil {
		c.t.Fatalf("writing to the server: %v\nstderr:\n%s", err, c.stderr)
	}
}

// request sends a request and returns the channel its response comes on.
func (c *rpcClient) request(method string, params any) <-chan rpcFrame {
	c.mu.Lock()
	c.seq++
	id := c.seq
	ch := make(chan rpcFrame, 1)
	c.waiting[strconv.Itoa(id)] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

// call sends a request and waits for its response.
func (c *rpcClient) call(method string, params any) rpcFrame {
	c.t.Helper()
	return c.await(c.request(method, params), 3*time.Minute)
}

func (c *rpcClient) await(ch <-chan rpcFrame, d time.Duration) rpcFrame {
	c.t.Helper()
	select {
	case f := <-ch:
		return f
	case <-time.After(d):
		c.t.Fatalf("no response in %v\nstderr:\n%s", d, c.stderr)
	case err := <-c.exited:
		c.t.Fatalf("the server exited (%v)\nstderr:\n%s", err, c.stderr)
	}
	return rpcFrame{}
}

// exit waits for the server to exit and returns its Wait error; after
// says what should have ended it, for the failure.
func (c *rpcClient) exit(after string) error {
	c.t.Helper()
	select {
	case err := <-c.exited:
		c.exited <- nil // For the cleanup.
		return err
	case <-time.After(30 * time.Second):
		c.t.Fatalf("the server did not exit %s\nstderr:\n%s", after, c.stderr)
	}
	return nil
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured map[string]any `json:"structuredContent"`
	IsError    bool           `json:"isError"`
}

func (r toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// str returns a string field of the structured content.
func (r toolResult) str(key string) string {
	s, _ := r.Structured[key].(string)
	return s
}

// tool calls a tool, with a progress token when token is not "".
func (c *rpcClient) tool(name, token string, args map[string]any) toolResult {
	c.t.Helper()
	return c.toolResult(c.await(c.toolRequest(name, token, args), 3*time.Minute))
}

func (c *rpcClient) toolRequest(name, token string, args map[string]any) <-chan rpcFrame {
	params := map[string]any{"name": name, "arguments": args}
	if token != "" {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	return c.request("tools/call", params)
}

func (c *rpcClient) toolResult(f rpcFrame) toolResult {
	c.t.Helper()
	var r toolResult
	if f.Error != nil || json.Unmarshal(f.Result, &r) != nil {
		c.t.Fatalf("tools/call: %+v %s\nstderr:\n%s", f.Error, f.Result, c.stderr)
	}
	return r
}

// progress returns the progress messages sent for token.
func (c *rpcClient) progress(token string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, b := range c.frames {
		var f struct {
			Method string
			Params struct {
				ProgressToken any
				Message       string
			}
		}
		if json.Unmarshal(b, &f) == nil && f.Method == "notifications/progress" && f.Params.ProgressToken == token {
			out = append(out, f.Params.Message)
		}
	}
	return out
}

// sent returns every byte the server wrote to stdout so far.
func (c *rpcClient) sent() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Join(c.frames, nil)
}

var terminal = []string{"finished", "hung", "failed", "cancelled"}

// waitEnd calls wait_agent in steps of wait seconds until the run ends,
// and returns every answer.
func (c *rpcClient) waitEnd(id string, wait float64) []toolResult {
	c.t.Helper()
	var all []toolResult
	for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); {
		r := c.tool("wait_agent", "", map[string]any{"run_id": id, "wait": wait})
		all = append(all, r)
		if slices.Contains(terminal, r.str("state")) {
			return all
		}
	}
	c.t.Fatalf("run %s did not end", id)
	return nil
}

// childPidsIn returns the pids of the fake agents and of their escaped
// children that the session logs in dir hold so far.
func childPidsIn(dir string) (agents, children []int) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, p := range paths {
		recs, _ := mcpRecords(p)
		for _, r := range recs {
			if pid, ok := r["pid"].(float64); ok && r["msg"] == "start" {
				agents = append(agents, int(pid))
			}
			var ev struct {
				Type string
				Pid  int
			}
			if raw, _ := r["raw"].(string); json.Unmarshal([]byte(raw), &ev) == nil && ev.Type == "child" {
				children = append(children, ev.Pid)
			}
		}
	}
	return agents, children
}

// waitForChildren waits until the logs in dir name n escaped children.
func waitForChildren(t *testing.T, dir string, n int) (agents, children []int) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if agents, children = childPidsIn(dir); len(children) >= n && len(agents) >= n {
			return agents, children
		}
	}
	t.Fatalf("fewer than %d children logged in %s", n, dir)
	return nil, nil
}

// gone fails the test unless pid exits within a few seconds: a process
// killed is gone by then, its exit included, which for a race-instrumented
// binary on a busy machine can take a while after the kill.
func gone(t *testing.T, pid int) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Errorf("pid %d is still running", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL) // Leave nothing behind.
}

func toolCallLine(id, command string, timeoutMS int) string {
	b, _ := json.Marshal(map[string]any{"type": "tool_call", "subtype": "started", "call_id": id,
		"tool_call": map[string]any{"shellToolCall": map[string]any{"args": map[string]any{"command": command, "timeout": timeoutMS}}}})
	return string(b)
}

func toolEndLine(id string) string {
	return `{"type":"tool_call","subtype":"completed","call_id":"` + id + `","tool_call":{"shellToolCall":{"result":{}}}}`
}

// TestMCPBackgroundLongRun starts a 90 s agent run in the background (far
// past a client's 60 s limit) and waits for it in 25 s steps, as a client
// would: running with its phase and tool calls, then the answer.
func TestMCPBackgroundLongRun(t *testing.T) {
	t.Parallel()
	// Each tick step prints its first line at once: 45 s each.
	c := serve(t, mcpConfig(t), steps("line", initLine, "line", toolCallLine("c1", "npm test", 60000), "tick", "10", "5s",
		"line", toolEndLine("c1"), "tick", "10", "5s", "line", answerLine))
	start := time.Now()
	st := c.tool("start_agent", "", map[string]any{"prompt": "make the tests pass"})
	id := st.str("run_id")
	if st.IsError || len(id) < 20 || st.str("state") != "running" {
		t.Fatalf("start_agent: %+v", st)
	}
	var waits []toolResult
	var took []time.Duration
	for i := 0; len(waits) == 0 || !slices.Contains(terminal, waits[len(waits)-1].str("state")); i++ {
		if i == 8 {
			t.Fatalf("not ended after %d waits: %+v", i, waits)
		}
		began := time.Now()
		waits = append(waits, c.tool("wait_agent", fmt.Sprint("w", i), map[string]any{"run_id": id, "wait": 25}))
		took = append(took, time.Since(began))
	}
	last := waits[len(waits)-1]
	if last.IsError || last.text() != "All tests pass." || last.str("session_id") != "s-1" || last.str("run_id") != id {
		t.Fatalf("final wait: %+v", last)
	}
	total := time.Since(start)
	if len(waits) < 4 || total < 85*time.Second {
		t.Errorf("%d waits in %v: the run takes 90 s", len(waits), total)
	}
	t.Logf("%d waits (%v) in %v", len(waits), took, total)
	var tools []string
	for i, w := range waits[:len(waits)-1] {
		if w.IsError || w.str("state") != "running" || w.str("phase") == "" {
			t.Errorf("wait %d: %+v", i, w)
		}
		if took[i] < 24*time.Second || took[i] > 40*time.Second {
			t.Errorf("wait %d took %v; want about 25s", i, took[i])
		}
		if p := c.progress(fmt.Sprint("w", i)); len(p) < 2 {
			t.Errorf("wait %d: progress %q; want one at least every 10s", i, p)
		}
	}
	for _, w := range waits {
		since, _ := w.Structured["since"].(map[string]any)
		calls, _ := since["tool_calls"].([]any)
		for _, call := range calls {
			m := call.(map[string]any)
			tools = append(tools, fmt.Sprint(m["event"], " ", m["command"]))
		}
	}
	if !slices.Equal(tools, []string{"started npm test", "ended npm test"}) {
		t.Errorf("tool calls across the waits: %q", tools)
	}
	if first := waits[0].text(); !strings.Contains(first, "running shellToolCall: npm test") || !strings.Contains(first, `started shellToolCall "npm test"`) {
		t.Errorf("first wait's text: %q", first)
	}
}

// TestMCPBackgroundHang: a hang comes back through wait_agent as hung,
// with the structured error.
func TestMCPBackgroundHang(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfig(t), steps("line", initLine, "err", "model stream stalled", "hang"))
	st := c.tool("start_agent", "", map[string]any{"prompt": "fix it", "idle_timeout": "2s"})
	waits := c.waitEnd(st.str("run_id"), 25)
	last := waits[len(waits)-1]
	reason, _ := last.Structured["reason"].(map[string]any)
	partial, _ := last.Structured["partial"].(map[string]any)
	if !last.IsError || last.str("state") != "hung" || last.str("code") != "EIDLE" || reason["kind"] != "idle" || last.str("session_id") != "s-1" ||
		!strings.Contains(fmt.Sprint(partial["stderr_tail"]), "model stream stalled") {
		t.Errorf("final wait: %+v", last)
	}
	if !strings.HasPrefix(last.text(), "The agent hung: no output for 2") {
		t.Errorf("text %q", last.text())
	}
}

// TestMCPBackgroundCancel: cancel_agent kills the run's whole tree at
// once, an escaped child that ignores SIGTERM too.
func TestMCPBackgroundCancel(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfig(t), steps("line", initLine, "ignore-term", "setsid-child", "hang"))
	st := c.tool("start_agent", "", map[string]any{"prompt": "fix it"})
	agents, children := waitForChildren(t, c.logDir, 1)
	res := c.tool("cancel_agent", "", map[string]any{"run_id": st.str("run_id")})
	if res.IsError || res.str("state") != "cancelled" || res.str("code") != "ECANCELED" || !strings.HasPrefix(res.text(), "Cancelled run ") {
		t.Errorf("cancel_agent: %+v", res)
	}
	for _, pid := range append(agents, children...) {
		gone(t, pid)
	}
	if w := c.tool("wait_agent", "", map[string]any{"run_id": st.str("run_id"), "wait": 0}); w.str("state") != "cancelled" {
		t.Errorf("wait after cancel: %+v", w)
	}
}

// TestMCPBackgroundDisconnect: the client goes with two background runs
// going; the server kills both trees and exits 0.
func TestMCPBackgroundDisconnect(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfig(t), steps("line", initLine, "setsid-child", "hang"))
	for range 2 {
		if st := c.tool("start_agent", "", map[string]any{"prompt": "fix it"}); st.IsError {
			t.Fatalf("start_agent: %+v", st)
		}
	}
	agents, children := waitForChildren(t, c.logDir, 2)
	_ = c.stdin.Close()
	if err := c.exit("after the client went"); err != nil {
		t.Errorf("server exit: %v\nstderr:\n%s", err, c.stderr)
	}
	for _, pid := range append(agents, children...) {
		gone(t, pid)
	}
}

// TestMCPBackgroundSIGTERM: SIGTERM to the server kills a background
// run's whole tree before the server exits 143.
func TestMCPBackgroundSIGTERM(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfig(t), steps("line", initLine, "ignore-term", "setsid-child", "hang"))
	if st := c.tool("start_agent", "", map[string]any{"prompt": "fix it"}); st.IsError {
		t.Fatalf("start_agent: %+v", st)
	}
	agents, children := waitForChildren(t, c.logDir, 1)
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	var ee *exec.ExitError
	if err := c.exit("on SIGTERM"); !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("server exit: %v\nstderr:\n%s", err, c.stderr)
	}
	for _, pid := range append(agents, children...) {
		gone(t, pid)
	}
}

// TestMCPBackgroundQueue starts 20 runs with max_concurrent 2: they queue,
// agent_sessions shows it, and all finish with their answers.
func TestMCPBackgroundQueue(t *testing.T) {
	t.Parallel()
	// Each run outlasts a few starts, however slow a busy machine is.
	c := serve(t, mcpConfigWith(t, "", "max_concurrent = 2"), steps("line", initLine, "sleep", "2s", "line", answerLine))
	var ids []string
	states := map[string]int{}
	for range 20 {
		st := c.tool("start_agent", "", map[string]any{"prompt": "fix it"})
		ids = append(ids, st.str("run_id"))
		states[st.str("state")]++
	}
	if states["queued"] < 10 || states["queued"]+states["running"]+states["finished"] != 20 {
		t.Errorf("states at start: %v", states)
	}
	list := c.tool("agent_sessions", "", nil)
	runs, _ := list.Structured["runs"].([]any)
	listed := map[string]int{}
	for _, r := range runs {
		listed[r.(map[string]any)["state"].(string)]++
	}
	if len(runs) != 20 || listed["running"] > 2 {
		t.Errorf("agent_sessions: %v", listed)
	}
	for _, id := range ids {
		waits := c.waitEnd(id, 25)
		if last := waits[len(waits)-1]; last.IsError || last.text() != "All tests pass." {
			t.Errorf("run %s: %+v", id, last)
		}
	}
}

// TestMCPUnknownRunID: an id the server never gave is a clear tool error.
func TestMCPUnknownRunID(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfig(t), steps("line", answerLine))
	for _, name := range []string{"wait_agent", "cancel_agent"} {
		res := c.tool(name, "", map[string]any{"run_id": "run_doesnotexist"})
		if !res.IsError || res.str("code") != "ENOENT" || !strings.Contains(res.text(), `No run has run_id "run_doesnotexist"`) {
			t.Errorf("%s: %+v", name, res)
		}
	}
}

// TestMCPMalformedFrames sends garbage while a call and a background run
// are going: each bad frame gets a JSON-RPC error, and the server and its
// runs go on.
func TestMCPMalformedFrames(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfig(t), steps("line", initLine, "sleep", "2s", "line", answerLine))
	st := c.tool("start_agent", "", map[string]any{"prompt": "fix it"})
	running := c.toolRequest("run_agent", "", map[string]any{"prompt": "fix it"})
	for _, frame := range []string{"garbage", `{"id":4}`, "[1,2]", strings.Repeat("x", 5<<20), `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`} {
		c.write([]byte(frame + "\n"))
	}
	if res := c.toolResult(c.await(running, 2*time.Minute)); res.IsError || res.text() != "All tests pass." {
		t.Errorf("run_agent during the garbage: %+v", res)
	}
	waits := c.waitEnd(st.str("run_id"), 25)
	if last := waits[len(waits)-1]; last.IsError || last.text() != "All tests pass." {
		t.Errorf("background run: %+v", last)
	}
	if f := c.call("tools/list", nil); f.Error != nil || !bytes.Contains(f.Result, []byte("start_agent")) {
		t.Errorf("tools/list after the garbage: %+v", f)
	}
	var errs []string
	c.mu.Lock()
	for _, b := range c.frames {
		var f rpcFrame
		if json.Unmarshal(b, &f) == nil && f.Error != nil {
			errs = append(errs, fmt.Sprintf("%s %d", f.ID, f.Error.Code))
		}
	}
	c.mu.Unlock()
	if want := []string{"null -32700", "4 -32600", "null -32600", "null -32600", "null -32600"}; !slices.Equal(errs, want) {
		t.Errorf("error responses %q, want %q", errs, want)
	}
}

// TestMCPSecretsRedacted: a tool command with secrets in it reaches the
// client masked, in progress, warnings, waits and results.
func TestMCPSecretsRedacted(t *testing.T) {
	t.Parallel()
	const sk, gh = "sk-proj-ABCDEFGHIJKLMNOPQRSTUV0123", "ghp_0123456789abcdefABCDEFabcdef0123"
	c := serve(t, mcpConfigWith(t, "warn_before = \"1s\"\ntool_grace = \"500ms\"", ""),
		steps("line", initLine, "line", toolCallLine("c1", "deploy --token "+gh+" --key "+sk, 1000), "err", "token "+gh, "hang"),
		"GITHUB_TOKEN="+gh)
	if res := c.tool("run_agent", "run", map[string]any{"prompt": "deploy", "idle_timeout": "2s"}); res.str("code") != "ETIMEDOUT" {
		t.Errorf("run_agent: %+v", res)
	}
	st := c.tool("start_agent", "", map[string]any{"prompt": "deploy", "idle_timeout": "2s"})
	waits := c.waitEnd(st.str("run_id"), 1)
	if last := waits[len(waits)-1]; last.str("code") != "ETIMEDOUT" || !strings.Contains(last.text(), "deploy --token [REDACTED] --key sk-[REDACTED]") {
		t.Errorf("final wait: %+v", last)
	}
	if p := c.progress("run"); !slices.ContainsFunc(p, func(s string) bool { return strings.Contains(s, "deploy --token [REDACTED]") }) {
		t.Errorf("progress %q", p)
	}
	sent := c.sent()
	for _, secret := range []string{sk, gh} {
		if i := bytes.Index(sent, []byte(secret)); i >= 0 {
			t.Errorf("the client received %q: …%s…", secret, sent[max(i-200, 0):min(i+100, len(sent))])
		}
	}
}

// TestMCPPromptIsAPrompt: a prompt that looks like a flag reaches cursor
// as its prompt, after "--", and the caller's workspace stays.
func TestMCPPromptIsAPrompt(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfig(t), steps("args", "line", answerLine))
	ws := t.TempDir()
	for _, prompt := range []string{"--workspace=/", "--resume=X", "--output-format=text", "-p"} {
		res := c.tool("run_agent", "", map[string]any{"prompt": prompt, "workspace": ws})
		if res.IsError {
			t.Fatalf("%s: %+v", prompt, res)
		}
		argv := agentArgv(t, res.str("log_path"))
		ok := len(argv) >= 2 && slices.Equal(argv[len(argv)-2:], []string{"--", prompt})
		if i := slices.Index(argv, "--workspace"); i < 0 || i+1 >= len(argv) || argv[i+1] != ws {
			ok = false
		}
		if !ok {
			t.Errorf("prompt %q: cursor got %q; want --workspace %s, and -- before the prompt, last", prompt, argv, ws)
		}
	}
}
