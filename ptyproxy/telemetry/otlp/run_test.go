package otlp

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/watchdog"
)

// A run of two attempts as the wrapper logs it: the first hangs in a tool
// call and is killed, the second resumes and answers.
const (
	traceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
	caller   = "00f067aa0ba902b7"
	runSpan  = "1111111111111111"
	attempt1 = "2222222222222222"
	attempt2 = "3333333333333333"
	secret   = "hunter2-very-secret"
)

func events(lines ...string) []byte {
	var b []byte
	t := time.UnixMilli(1_700_000_000_000)
	for i, l := range lines {
		at := t.Add(time.Duration(i) * 100 * time.Millisecond)
		b = sessionlog.AppendEvent(b, sessionlog.Event{Time: at, RecvTS: at.UnixMilli(), Raw: []byte(l)})
	}
	return b
}

func writeRun(t *testing.T) []byte {
	t.Helper()
	var log bytes.Buffer
	rec := sessionlog.NewRecorder(redact.New(nil, []string{"DB_PASSWORD=" + secret}), sessionlog.SinkTo(&log))
	trace := func(span string) *sessionlog.Trace {
		return &sessionlog.Trace{TraceParent: "00-" + traceID + "-" + span + "-01", RunSpan: runSpan, Parent: caller}
	}
	rec.Write(sessionlog.Command{Attempt: 1, Run: "r1", Agent: "cursor", Path: "/bin/cursor-agent",
		Argv: []string{"-p", "--output-format", "stream-json", "--model", "gpt-5", "fix the build"}, Watch: "events", Trace: trace(attempt1)})
	rec.Write(sessionlog.Start{Pid: 42})
	rec.Events(events(
		`{"type":"system","subtype":"init","session_id":"sess-1","model":"gpt-5-fast"}`,
		`{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"ls -la /srcdir","timeout":5000}}}}`,
		`{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{"success":{}}}}}`,
		`{"type":"tool_call","subtype":"started","call_id":"c2","tool_call":{"shellToolCall":{"args":{"command":"curl -u admin:`+secret+` http://db","timeout":1000}}}}`,
	))
	rec.Write(sessionlog.Warning{Message: "a hang is near: curl -u admin", InMS: 1000, Reason: &watchdog.Reason{Kind: "tool"}})
	rec.Write(sessionlog.HangDetected{Reason: watchdog.Reason{Kind: "tool", Silence: 3 * time.Second, OpenCount: 1,
		OpenCalls: []watchdog.OpenCall{{ID: "c2", Kind: "shellToolCall", Command: "curl", Elapsed: 3 * time.Second, Timeout: time.Second, Budget: 31 * time.Second}}}})
	rec.Write(sessionlog.Kill{Signal: "SIGTERM", Pids: []int{-42}})
	rec.Write(sessionlog.AgentExited{Code: -1, Signal: "SIGTERM"})
	rec.Write(sessionlog.UsageRecord{InputTokens: 100, OutputTokens: 10})
	rec.Write(sessionlog.Exit{End: sessionlog.End{Cause: "hung", Status: 124}, ToolCalls: 2})
	rec.Write(sessionlog.Command{Attempt: 2, Run: "r1", Agent: "cursor", Argv: []string{"-p", "--resume", "sess-1", "continue"}, Watch: "events", Trace: trace(attempt2)})
	rec.Write(sessionlog.Restart{Attempt: 2, Why: "the last attempt hung (tool)"})
	rec.Events(events(`{"type":"assistant","message":{"content":[{"type":"text","text":"fixed"}]}}`,
		`{"type":"result","subtype":"success","result":"fixed","session_id":"sess-1"}`))
	cost := 0.25
	rec.Write(sessionlog.Exit{End: sessionlog.End{Cause: "exited", Status: 0}, Usage: &sessionlog.UsageRecord{InputTokens: 50, OutputTokens: 5, CostUSD: &cost}})
	return log.Bytes()
}

func readRun(t *testing.T, log []byte, capture bool) (tracetest.SpanStubs, metricdata.ResourceMetrics) {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans), sdktrace.WithIDGenerator(ids{}))
	reader := sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(func(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.DeltaTemporality }))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	meters, err := NewMeters(mp.Meter(scope))
	if err != nil {
		t.Fatal(err)
	}
	secrets := redact.New(nil, []string{"DB_PASSWORD=" + secret})
	Read(bytes.NewReader(log), Options{Tracer: tp.Tracer(scope), Meters: meters, Capture: capture,
		Redact: func(s string) string { return secrets.MaskString(s).String() }})
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return spans.GetSpans(), rm
}

func attr(kvs []attribute.KeyValue, key string) (attribute.Value, bool) {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func named(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func TestRunAsATrace(t *testing.T) {
	t.Parallel()
	spans, _ := readRun(t, writeRun(t), false)
	root := named(spans, "invoke_agent cursor")
	attempts := named(spans, "cursor_wrap.attempt")
	tools := named(spans, "execute_tool shellToolCall")
	if len(root) != 1 || len(attempts) != 2 || len(tools) != 2 {
		t.Fatalf("spans: %d root, %d attempts, %d tools; want 1, 2, 2", len(root), len(attempts), len(tools))
	}
	r := root[0]
	if r.SpanContext.TraceID().String() != traceID || r.SpanContext.SpanID().String() != runSpan || r.Parent.SpanID().String() != caller || !r.Parent.IsRemote() {
		t.Errorf("root ids: trace %s span %s parent %s", r.SpanContext.TraceID(), r.SpanContext.SpanID(), r.Parent.SpanID())
	}
	for key, want := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "cursor", "gen_ai.request.model": "gpt-5",
		"gen_ai.response.model": "gpt-5-fast", "gen_ai.conversation.id": "sess-1", "cursor_wrap.exit.cause": "exited", "cursor_wrap.hang.kind": "tool"} {
		if v, _ := attr(r.Attributes, key); v.Emit() != want {
			t.Errorf("root %s = %q, want %q", key, v.Emit(), want)
		}
	}
	for key, want := range map[string]int64{"cursor_wrap.exit.status": 0, "cursor_wrap.restarts": 1, "gen_ai.usage.input_tokens": 150, "gen_ai.usage.output_tokens": 15} {
		if v, _ := attr(r.Attributes, key); v.AsInt64() != want {
			t.Errorf("root %s = %d, want %d", key, v.AsInt64(), want)
		}
	}
	if r.Status.Code == codes.Error {
		t.Errorf("a run that ended 0 is failed: %+v", r.Status)
	}
	first, second := attempts[0], attempts[1]
	if first.SpanContext.SpanID().String() != attempt1 || second.SpanContext.SpanID().String() != attempt2 ||
		first.Parent.SpanID().String() != runSpan || second.Parent.SpanID().String() != runSpan {
		t.Errorf("attempts: %s under %s, %s under %s", first.SpanContext.SpanID(), first.Parent.SpanID(), second.SpanContext.SpanID(), second.Parent.SpanID())
	}
	if v, _ := attr(first.Attributes, "error.type"); first.Status.Code != codes.Error || v.AsString() != "hung" {
		t.Errorf("the hung attempt: status %+v, error.type %q", first.Status, v.AsString())
	}
	var evs []string
	for _, e := range first.Events {
		evs = append(evs, e.Name)
	}
	if got := strings.Join(evs, " "); got != "cursor_wrap.warning cursor_wrap.hang_detected cursor_wrap.kill" {
		t.Errorf("the hung attempt's events: %s", got)
	}
	hung := tools[1]
	if v, _ := attr(hung.Attributes, "cursor_wrap.tool.outcome"); v.AsString() != "hung" || hung.Parent.SpanID() != first.SpanContext.SpanID() || hung.Status.Code != codes.Error {
		t.Errorf("the hung call: outcome %q, parent %s, status %+v", v.AsString(), hung.Parent.SpanID(), hung.Status)
	}
	for key, want := range map[string]int64{"cursor_wrap.tool.declared_timeout_ms": 1000, "cursor_wrap.tool.budget_ms": 31000} {
		if v, _ := attr(hung.Attributes, key); v.AsInt64() != want {
			t.Errorf("the hung call's %s = %d, want %d", key, v.AsInt64(), want)
		}
	}
	if v, _ := attr(hung.Attributes, "gen_ai.tool.call.id"); v.AsString() != "c2" {
		t.Errorf("gen_ai.tool.call.id = %q", v.AsString())
	}
	if v, _ := attr(second.Events[0].Attributes, "cursor_wrap.attempt"); second.Events[0].Name != "cursor_wrap.restart" || v.AsInt64() != 2 {
		t.Errorf("the restart event: %+v", second.Events)
	}
}

// TestNoContentUnlessAskedFor: without the switch no prompt, command,
// answer or wrapper message leaves; with it they do, masked.
func TestNoContentUnlessAskedFor(t *testing.T) {
	t.Parallel()
	log := writeRun(t)
	dump := func(spans tracetest.SpanStubs) string {
		var b strings.Builder
		for _, s := range spans {
			for _, kv := range s.Attributes {
				b.WriteString(string(kv.Key) + "=" + kv.Value.Emit() + "\n")
			}
			for _, e := range s.Events {
				for _, kv := range e.Attributes {
					b.WriteString(string(kv.Key) + "=" + kv.Value.Emit() + "\n")
				}
			}
		}
		return b.String()
	}
	off, _ := readRun(t, log, false)
	for _, text := range []string{"fix the build", "curl", "srcdir", "fixed", "a hang is near", "gen_ai.input.messages", "gen_ai.tool.call.arguments"} {
		if strings.Contains(dump(off), text) {
			t.Errorf("without capture, %q left", text)
		}
	}
	on, _ := readRun(t, log, true)
	got := dump(on)
	for _, text := range []string{"fix the build", "curl -u admin:[REDACTED] http://db", "fixed"} {
		if !strings.Contains(got, text) {
			t.Errorf("with capture, %q did not leave", text)
		}
	}
	if strings.Contains(got, secret) {
		t.Errorf("with capture, the secret left:\n%s", got)
	}
}

func TestRunMetrics(t *testing.T) {
	t.Parallel()
	_, rm := readRun(t, writeRun(t), false)
	seen := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			seen[m.Name] = m.Data
		}
	}
	for _, name := range []string{"gen_ai.client.operation.duration", "gen_ai.client.token.usage", "cursor_wrap.runs", "cursor_wrap.hangs",
		"cursor_wrap.restarts", "cursor_wrap.tool.duration", "cursor_wrap.cost"} {
		if seen[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	runs, ok := seen["cursor_wrap.runs"].(metricdata.Sum[int64])
	if !ok || runs.Temporality != metricdata.DeltaTemporality || len(runs.DataPoints) != 1 || runs.DataPoints[0].Value != 1 {
		t.Fatalf("cursor_wrap.runs: %+v", seen["cursor_wrap.runs"])
	}
	if v, _ := runs.DataPoints[0].Attributes.Value("cursor_wrap.exit.cause"); v.AsString() != "exited" {
		t.Errorf("runs by cause: %v", v.Emit())
	}
	hangs := seen["cursor_wrap.hangs"].(metricdata.Sum[int64])
	if v, _ := hangs.DataPoints[0].Attributes.Value("gen_ai.tool.name"); v.AsString() != "shellToolCall" {
		t.Errorf("the hang's tool: %q", v.AsString())
	}
	tokens := seen["gen_ai.client.token.usage"].(metricdata.Histogram[int64])
	var sum int64
	for _, dp := range tokens.DataPoints {
		sum += dp.Sum
	}
	if sum != 165 {
		t.Errorf("tokens: %d, want 165", sum)
	}
}

// TestUnfinishedRun: records that end without an exit record (the wrapper
// was killed) still end their spans, failed.
func TestUnfinishedRun(t *testing.T) {
	t.Parallel()
	log := writeRun(t)
	cut := bytes.Index(log, []byte(`"msg":"hang_detected"`))
	spans, _ := readRun(t, log[:bytes.LastIndexByte(log[:cut], '\n')+1], false)
	for _, s := range spans {
		if s.EndTime.IsZero() {
			t.Errorf("%s not ended", s.Name)
		}
	}
	root := named(spans, "invoke_agent cursor")[0]
	if v, _ := attr(root.Attributes, "error.type"); v.AsString() != "unfinished" {
		t.Errorf("error.type = %q", v.AsString())
	}
}
