package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// are listed, a call is answered, and a hang comes back as EIDLE.
func TestMCPInspector(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx is not installed: skipping the MCP Inspector test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "npm", "view", inspector, "version").CombinedOutput(); err != nil {
		t.Skipf("the npm registry is unreachable, skipping the MCP Inspector test: %v\n%s", err, out)
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
	if !bytes.Contains(list, []byte(`"name":"run_agent"`)) || !bytes.Contains(list, []byte(`"name":"agent_sessions"`)) {
		t.Errorf("tools/list: %s", list)
	}

	res := inspect(steps("line", initLine, "line", answerLine), "--tool-arg", "prompt=make the tests pass", "--tool-name", "run_agent", "--method", "tools/call")
	content, _ := res["content"].([]any)
	structured, _ := res["structuredContent"].(map[string]any)
	if len(content) == 0 || content[0].(map[string]any)["text"] != "All tests pass." || structured["session_id"] != "s-1" || res["isError"] == true {
		t.Errorf("success: %v", res)
	}

	res = inspect(steps("line", initLine, "hang"), "--tool-arg", "prompt=make the tests pass", "idle_timeout=300ms", "--tool-name", "run_agent", "--method", "tools/call")
	structured, _ = res["structuredContent"].(map[string]any)
	if res["isError"] != true || structured["code"] != "EIDLE" || structured["kind"] != "idle" || structured["session_id"] != "s-1" {
		t.Errorf("hang: %v", res)
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
	want := []string{"--print", "--output-format", "stream-json", "--force", "--model", "auto", "--workspace", ws, "--resume", "s-0", "fix it"}
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
