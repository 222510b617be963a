package oteltest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cursor-wrap/ptyproxy/sessionlog"
)

// TestMCPBackgroundRunTrace: a run started with start_agent under a
// client's params._meta.traceparent is a child of the client's span.
func TestMCPBackgroundRunTrace(t *testing.T) {
	needBackend(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "cursor-wrap-mcp"), "--agent-bin", filepath.Join(bin, "fakeagent"), "--log-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+backend.otlp,
		steps("line", initLine, "line", toolStarted("c1", "go test ./...", 60000), "sleep", "300ms", "line", toolDone("c1"), "line", resultLine))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "oteltest", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.Bytes())
	}
	defer cs.Close()
	const clientTrace, clientSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: mcp.Meta{"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01"},
		Name: "start_agent", Arguments: map[string]any{"prompt": "test it"}})
	if err != nil || res.IsError {
		t.Fatalf("start_agent: %v %+v\n%s", err, res, stderr.Bytes())
	}
	runID, _ := structured(res)["run_id"].(string)
	for state := ""; state != "finished"; {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait_agent", Arguments: map[string]any{"run_id": runID, "wait": 20}})
		if err != nil {
			t.Fatalf("wait_agent: %v\n%s", err, stderr.Bytes())
		}
		if state, _ = structured(res)["state"].(string); state != "running" && state != "queued" && state != "finished" {
			t.Fatalf("run state %q: %+v\n%s", state, structured(res), stderr.Bytes())
		}
	}
	spans := backend.trace(t, clientTrace, 3)
	root, attempt, tool := one(t, spans, "invoke_agent cursor"), one(t, spans, "cursor_wrap.attempt"), one(t, spans, "execute_tool shellToolCall")
	if root.parent() != clientSpan || attempt.parent() != root.SpanID || tool.parent() != attempt.SpanID || root.tag("cursor_wrap.via") != "mcp" {
		t.Errorf("run under %s (want %s), via %q; attempt under %s; tool under %s", root.parent(), clientSpan, root.tag("cursor_wrap.via"), attempt.parent(), tool.parent())
	}
}

// structured is a tool result's structured content, as JSON reads it.
func structured(res *mcp.CallToolResult) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &m)
	return m
}

// records reads a run's session log records, by msg.
func records(t *testing.T, logDir string) map[string][]sessionlog.Header {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(logDir, "cursor-wrap-*.jsonl"))
	out := map[string][]sessionlog.Header{}
	for _, l := range logs {
		f, err := os.Open(l)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if h, _, err := sessionlog.Decode(sc.Bytes()); err == nil {
				out[h.Msg] = append(out[h.Msg], h)
			}
		}
		f.Close()
	}
	return out
}

// TestCollectorDownOrSilent: a collector that refuses connections, or takes
// them and never answers, changes neither the exit status nor when the
// hang is declared and killed; the run's end waits at most the flush
// bound, says so in one line, and the log has why.
func TestCollectorDownOrSilent(t *testing.T) {
	t.Parallel()
	if bin == "" {
		t.Fatal("the binaries were not built")
	}
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := down.Addr().String()
	down.Close() // Nothing listens there now: connections are refused.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() { // Takes connections, reads nothing, answers nothing.
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	for name, endpoint := range map[string]string{"down": "http://" + downAddr, "silent": "http://" + silent.Addr().String()} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := wrap(t, endpoint, []string{steps("line", initLine, "line", toolStarted("c1", "sleep 600", 200), "hang")},
				"--idle-timeout", "1s", "--tool-grace", "0s", "--kill-grace", "1s", "--otel-flush-timeout", "2s", "--", "fix it")
			if r.code != 124 {
				t.Fatalf("exit %d, want 124; stderr %s", r.code, r.stderr)
			}
			recs := records(t, r.logDir)
			events, hang, kills, exits := recs["event"], recs["hang_detected"], recs["kill"], recs["exit"]
			if len(events) == 0 || len(hang) != 1 || len(kills) == 0 || len(exits) != 1 {
				t.Fatalf("records: %d events, %d hangs, %d kills, %d exits", len(events), len(hang), len(kills), len(exits))
			}
			// The tool declared 200ms and got no grace: every call is past
			// its deadline once the idle timeout passes, 1s after the
			// last output. Generous bounds: a loaded 2-core machine.
			if late := hang[0].Time.Sub(events[len(events)-1].Time); late < time.Second || late > 4*time.Second {
				t.Errorf("hang declared %v after the last output, want about 1s", late)
			}
			if gap := kills[0].Time.Sub(hang[0].Time); gap > time.Second {
				t.Errorf("the kill came %v after the verdict", gap)
			}
			failed := recs[sessionlog.MsgTelemetryFailed]
			if len(failed) == 0 {
				t.Errorf("no telemetry_failed record")
			}
			lines := strings.Count(r.stderr, "not exported")
			if lines != 1 {
				t.Errorf("%d lines say what was not exported, want 1; stderr %s", lines, r.stderr)
			}
			// Past the run's own end (its exit record) the wrapper waits at
			// most the flush bound, and a little for its own exit.
			if start := recs["command"][0].Time; r.took > exits[0].Time.Sub(start)+2*time.Second+3*time.Second {
				t.Errorf("the wrapper took %v for a run of %v", r.took, exits[0].Time.Sub(start))
			}
		})
	}
}

// TestMetricsThroughACollector: the run's metrics reach a collector (Jaeger
// run as one, with a metrics pipeline): the conventions' operation
// duration and the wrapper's counts, with delta temporality. (Token usage
// is recorded only for an agent that reports it: the in-memory tests of
// package otlp cover it.)
func TestMetricsThroughACollector(t *testing.T) {
	needBackend(t)
	t.Parallel()
	r := wrap(t, backend.otlp, []string{steps("line", initLine, "line", toolStarted("m1", "sleep 600", 200), "hang")},
		"--idle-timeout", "1s", "--tool-grace", "0s", "--kill-grace", "1s", "--", "hang for the metrics")
	if r.code != 124 {
		t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
	}
	want := []string{"gen_ai.client.operation.duration", "cursor_wrap.runs", "cursor_wrap.hangs", "cursor_wrap.tool.duration"}
	var out string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if out = backend.output.String(); strings.Contains(out, "hang for the metrics") || allNamed(out, want) {
			break
		}
	}
	for _, name := range want {
		if !strings.Contains(out, "-> Name: "+name) {
			t.Errorf("the collector got no %s", name)
		}
	}
	if !strings.Contains(out, "-> AggregationTemporality: Delta") || strings.Contains(out, "-> AggregationTemporality: Cumulative") {
		t.Errorf("temporality is not delta throughout")
	}
	if !strings.Contains(out, "cursor_wrap.hang.kind: Str(tool)") || !strings.Contains(out, "gen_ai.tool.name: Str(shellToolCall)") {
		t.Errorf("the hang's attributes are missing")
	}
	if t.Failed() {
		t.Logf("the collector's output:\n%s", out)
	}
}

func allNamed(out string, names []string) bool {
	for _, n := range names {
		if !strings.Contains(out, "-> Name: "+n) {
			return false
		}
	}
	return true
}
