package telemetry

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/redact"
)

func TestParseTraceParent(t *testing.T) {
	t.Parallel()
	good := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	sc, ok := ParseTraceParent(good)
	if !ok || sc.String() != good || !sc.Sampled() {
		t.Errorf("%s read as %s, %v", good, sc, ok)
	}
	for _, bad := range []string{"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", good + "-extra", "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"} {
		if _, ok := ParseTraceParent(bad); ok {
			t.Errorf("%q read as a traceparent", bad)
		}
	}
	if _, ok := ParseTraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future"); !ok {
		t.Error("a later version's traceparent is read for its first fields")
	}
}

func TestTraceUnderTheCaller(t *testing.T) {
	t.Parallel()
	tr := NewTrace("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	a, b := tr.Attempt(), tr.Attempt()
	if a.Parent != "00f067aa0ba902b7" || a.RunSpan != b.RunSpan || a.TraceParent == b.TraceParent ||
		!strings.HasPrefix(a.TraceParent, "00-4bf92f3577b34da6a3ce929d0e0e4736-") || !strings.HasSuffix(a.TraceParent, "-01") {
		t.Errorf("attempts %+v and %+v", a, b)
	}
	own := NewTrace("not a traceparent")
	if c := own.Attempt(); c.Parent != "" || !own.Sampled() || strings.HasPrefix(c.TraceParent, "00-4bf9") {
		t.Errorf("a run of its own: %+v", c)
	}
	if NewTrace("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00").Sampled() {
		t.Error("a caller that does not sample is not followed")
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	cfg := config.DefaultConfig()
	on := cfg
	on.OTel.Endpoint = "http://collector:4318"
	for _, tc := range []struct {
		name            string
		cfg             config.Config
		env             []string
		traces, metrics bool
		note            string
	}{
		{"off unless configured", cfg, nil, false, false, ""},
		{"an endpoint", on, nil, true, true, ""},
		{"a signal's own endpoint", cfg, []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://c:4318/v1/traces"}, true, false, ""},
		{"disabled", on, []string{"OTEL_SDK_DISABLED=true"}, false, false, ""},
		{"no metrics", on, []string{"OTEL_METRICS_EXPORTER=none"}, true, false, ""},
		{"grpc", on, []string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, false, false, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"},
		{"grpc for traces", on, []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc"}, false, true, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc"},
		{"http/protobuf", on, []string{"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}, true, true, ""},
		{"zipkin", on, []string{"OTEL_TRACES_EXPORTER=zipkin"}, false, true, "OTEL_TRACES_EXPORTER=zipkin is not supported"},
	} {
		s := Resolve(tc.cfg, tc.env)
		if s.Traces != tc.traces || s.Metrics != tc.metrics || !strings.Contains(strings.Join(s.Notes, "\n"), tc.note) || (tc.note == "") != (len(s.Notes) == 0) {
			t.Errorf("%s: traces %v metrics %v notes %q", tc.name, s.Traces, s.Metrics, s.Notes)
		}
	}
	on.OTel.Headers = []string{"authorization=Bearer x"}
	if s := Resolve(on, []string{"A=1"}); !slices.Contains(s.env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318") || !slices.Contains(s.env, "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer x") {
		t.Errorf("the exporter's environment: %q", s.env)
	}
}

// exporterOnPath puts a stand-in exporter, a shell script, on PATH.
func exporterOnPath(t *testing.T, script string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, Binary), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
}

func settings(flush time.Duration) Settings {
	return Settings{Traces: true, Metrics: true, Flush: flush, env: append(os.Environ(), "PATH="+os.Getenv("PATH"))}
}

// TestStuckExporter: an exporter that takes nothing (behind a collector
// that never answers) costs writes nothing and Close the flush bound.
func TestStuckExporter(t *testing.T) {
	exporterOnPath(t, "exec sleep 60")
	e := Start(settings(500 * time.Millisecond))
	line := (*redact.Redactor)(nil).Mask(append(bytes.Repeat([]byte("x"), 1023), '\n'))
	// The exporter never reads: writes that waited for it would never end.
	wrote := make(chan struct{})
	go func() {
		for range 16 << 10 { // 16 MiB: four times the queue
			e.Write(line)
		}
		close(wrote)
	}()
	select {
	case <-wrote:
	case <-time.After(time.Minute):
		t.Fatal("writes wait for the exporter")
	}
	begin := time.Now()
	failures := e.Close()
	if took := time.Since(begin); took < 450*time.Millisecond || took > 5*time.Second {
		t.Errorf("Close took %v, want about the flush bound", took)
	}
	if len(failures) != 1 || !strings.Contains(failures[0].Error, "not all sent within otel_flush_timeout (500ms)") {
		t.Errorf("failures: %+v", failures)
	}
}

// TestExporterReports: what the exporter reports comes back from Close,
// once it has read every record.
func TestExporterReports(t *testing.T) {
	exporterOnPath(t, `n=$(wc -l); echo "{\"signal\":\"traces\",\"error\":\"got $n records\"}"`)
	e := Start(settings(10 * time.Second))
	for range 3 {
		e.Write((*redact.Redactor)(nil).Mask([]byte("{}\n")))
	}
	failures := e.Close()
	if len(failures) != 1 || failures[0].Signal != "traces" || strings.TrimSpace(failures[0].Error) != "got 3 records" {
		t.Errorf("failures: %+v", failures)
	}
}

func TestNoExporter(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	failures := Start(settings(time.Second)).Close()
	if len(failures) != 1 || !strings.Contains(failures[0].Error, "cursor-wrap-otel is neither beside") {
		t.Errorf("failures: %+v", failures)
	}
}

// TestSDKOnlyInTheExporter keeps the OpenTelemetry SDK out of the
// wrapper's and the MCP server's binaries: linked, its package
// initialisation would run at every start (docs/performance.md).
func TestSDKOnlyInTheExporter(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"cursor-wrap", "cursor-wrap/mcpserver/cmd/cursor-wrap-mcp", "cursor-wrap/ptyproxy/telemetry/cmd/cursor-wrap-otel"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		linked := bytes.Contains(out, []byte("go.opentelemetry.io/otel/sdk\n"))
		if want := strings.HasSuffix(pkg, Binary); linked != want {
			t.Errorf("%s links the OpenTelemetry SDK: %v, want %v", pkg, linked, want)
		}
	}
}
