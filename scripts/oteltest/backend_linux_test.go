package oteltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
)

// The binaries the tests run, built by TestMain, and the backend.
var (
	bin     string // the directory of cursor-wrap, cursor-wrap-otel, cursor-wrap-mcp, fakeagent
	backend *jaeger
	missing string // why there is no backend, when there is none
)

const jaegerVersion = "v1.76.0"

func TestMain(m *testing.M) {
	// The cache is the user's: read before HOME is isolated.
	jaegerBin := os.Getenv("JAEGER_BIN")
	if jaegerBin == "" {
		cache, err := os.UserCacheDir()
		if err == nil {
			jaegerBin = filepath.Join(cache, "cursor-wrap", "jaeger", "jaeger-"+jaegerVersion)
		}
	}
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run(m, jaegerBin)
	os.RemoveAll(home)
	os.Exit(code)
}

func run(m *testing.M, jaegerBin string) int {
	var err error
	if bin, err = os.MkdirTemp("", "cursor-wrap-oteltest-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(bin)
	for name, pkg := range map[string]string{"cursor-wrap": "../..", "cursor-wrap-otel": "../../ptyproxy/telemetry/cmd/cursor-wrap-otel",
		"cursor-wrap-mcp": "../../mcpserver/cmd/cursor-wrap-mcp", "fakeagent": "../fakeagent"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	if _, err := os.Stat(jaegerBin); err != nil {
		missing = fmt.Sprintf("jaeger %s is not built (%v): scripts/jaeger.sh builds it (about 8 minutes cold), or set JAEGER_BIN", jaegerVersion, err)
		return m.Run()
	}
	if backend, err = startJaeger(jaegerBin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer backend.stop()
	return m.Run()
}

// needBackend skips a test without Jaeger, or fails it in CI.
func needBackend(t *testing.T) {
	t.Helper()
	if backend == nil {
		testenv.SkipOutsideCI(t, "%s", missing)
	}
}

// A jaeger is a running Jaeger: OTLP/HTTP in, its query API out, and the
// metrics it received in its output.
type jaeger struct {
	cmd    *exec.Cmd
	otlp   string // http://127.0.0.1:PORT, where the wrapper sends
	query  string // http://127.0.0.1:PORT, /api/traces
	output *syncBuffer
}

// freePorts returns n ports nothing listens on now.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// config is Jaeger's all-in-one configuration cut to what the tests use,
// on loopback ports of their own, with a metrics pipeline: Jaeger's own
// configuration has none, and refuses OTLP metrics.
const config = `
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
    metrics:
      receivers: [otlp]
      exporters: [debug]
  telemetry:
    metrics:
      level: none
    logs:
      level: info
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
  debug:
    verbosity: detailed
`

func startJaeger(path string) (*jaeger, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(bin, "jaeger.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(config, ports[0], ports[1], ports[2])), 0o600); err != nil {
		return nil, err
	}
	j := &jaeger{query: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), otlp: fmt.Sprintf("http://127.0.0.1:%d", ports[2]), output: &syncBuffer{}}
	j.cmd = exec.Command(path, "--config", "file:"+file)
	j.cmd.Stdout, j.cmd.Stderr = j.output, j.output
	j.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := j.cmd.Start(); err != nil {
		return nil, err
	}
	// Ready when both ends answer; a slow machine takes seconds.
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		q, qerr := http.Get(j.query + "/api/services")
		if qerr == nil {
			q.Body.Close()
			if c, err := net.Dial("tcp", strings.TrimPrefix(j.otlp, "http://")); err == nil {
				c.Close()
				return j, nil
			}
		}
		if j.cmd.ProcessState != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	j.stop()
	return nil, fmt.Errorf("jaeger did not start within 2m:\n%s", j.output.String())
}

func (j *jaeger) stop() {
	_ = syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
	_ = j.cmd.Wait()
}

// syncBuffer is a bytes.Buffer for a process's output, read while written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A span as Jaeger's query API gives it.
type span struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	StartTime int64 `json:"startTime"` // µs
	Duration  int64 `json:"duration"`  // µs
	Tags      []tag `json:"tags"`
	Logs      []struct {
		Timestamp int64 `json:"timestamp"`
		Fields    []tag `json:"fields"`
	} `json:"logs"`
	ProcessID string `json:"processID"`
}

type tag struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// tag returns a span's tag as text, "" when it has none.
func (s span) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

// parent returns the span's parent, "" for a root.
func (s span) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// events returns the names of the span's events, in order.
func (s span) events() []string {
	var names []string
	for _, l := range s.Logs {
		for _, f := range l.Fields {
			if f.Key == "event" {
				names = append(names, fmt.Sprint(f.Value))
			}
		}
	}
	return names
}

// event returns the fields of the span's first event called name.
func (s span) event(name string) map[string]string {
	for _, l := range s.Logs {
		fields := map[string]string{}
		for _, f := range l.Fields {
			fields[f.Key] = fmt.Sprint(f.Value)
		}
		if fields["event"] == name {
			return fields
		}
	}
	return nil
}

// trace waits for the trace with id to hold at least n spans, and returns
// them. Jaeger stores what the wrapper sent as it arrives: the wait is for
// the wrapper's exporter, which sent it before the wrapper exited.
func (j *jaeger) trace(t *testing.T, id string, n int) []span {
	t.Helper()
	var spans []span
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(j.query + "/api/traces/" + id)
		if err == nil {
			var body struct {
				Data []struct {
					Spans []span `json:"spans"`
				} `json:"data"`
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if json.Unmarshal(b, &body) == nil && len(body.Data) > 0 {
				spans = body.Data[0].Spans
				if len(spans) >= n {
					return spans
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("trace %s: %d spans in Jaeger, want %d", id, len(spans), n)
	return nil
}

// byName returns the spans called name.
func byName(spans []span, name string) []span {
	var out []span
	for _, s := range spans {
		if s.OperationName == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the one span called name, failing the test otherwise.
func one(t *testing.T, spans []span, name string) span {
	t.Helper()
	found := byName(spans, name)
	if len(found) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.OperationName)
		}
		t.Fatalf("%d spans called %q, want 1; the trace has %s", len(found), name, strings.Join(names, ", "))
	}
	return found[0]
}

// result is one run of the wrapper.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
	logDir         string
}

// wrap runs the built wrapper with export to endpoint, env added, and the
// fake agent's steps (or another agent: --agent-bin in args).
func wrap(t *testing.T, endpoint string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logDir := t.TempDir()
	full := append([]string{"--log-dir", logDir}, args...)
	if !containsFlag(args, "--agent-bin") {
		full = append([]string{"--agent-bin", filepath.Join(bin, "fakeagent")}, full...)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "cursor-wrap"), full...)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	begin := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(begin), logDir: logDir, code: cmd.ProcessState.ExitCode()}
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("running the wrapper: %v", err)
	}
	return r
}

func containsFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}
