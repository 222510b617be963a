package doctor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/scripts/testenv"
)

func TestMain(m *testing.M) {
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testenv.IsolateConfig()
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// run runs the command in process with args, and returns what it wrote
// and its exit status.
func run(args ...string) (stdout, stderr string, code int) {
	var out, errs bytes.Buffer
	code = Run(&cli.Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errs, Commands: cli.Table{Command}}, args)
	return out.String(), errs.String(), code
}

// TestDoctorInProcess runs doctor on a broken config file and for a shell
// the wrapper has no functions for (so that no shell starts: the checks of
// a real one are scripts/e2e's): each failure is a ✗ line with its fix,
// what holds a ✓, and the status is 1.
func TestDoctorInProcess(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("idel_timeout = \"5s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logDir := t.TempDir()
	stdout, stderr, code := run("--config", cfg, "--shell", "tcsh", "--log-dir", logDir)
	for _, want := range []string{
		"✗ config: " + cfg + `:1: unknown key "idel_timeout"`,
		"config --defaults` prints every key at its default\n",
		"✗ cursor-agent in tcsh goes through the wrapper\n    fix: cursor-wrap has functions for bash, zsh and fish",
		"✓ pseudo-terminals can be opened\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, stdout)
		}
	}
	if code != 1 || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	stdout, stderr, code = run("--shel", "zsh")
	if code != 2 || stdout != "" || stderr != "cursor-wrap: doctor: unknown flag --shel: did you mean --shell?\n" {
		t.Errorf("--shel: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDoctorTelemetry: doctor says a protocol that is not linked, and the
// export failure the newest run's log records.
func TestDoctorTelemetry(t *testing.T) {
	logDir := t.TempDir()
	log := filepath.Join(logDir, "cursor-wrap-1700000000000-s1.jsonl")
	rec := `{"time":"2026-11-25T10:00:00Z","level":"WARN","msg":"telemetry_failed","signal":"traces","error":"connection refused"}` + "\n"
	if err := os.WriteFile(log, []byte(`{"time":"2026-11-25T10:00:00Z","level":"INFO","msg":"command","attempt":1}`+"\n"+rec), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=doctorsecret")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "grpc")
	stdout, _, _ := run("--shell", "tcsh", "--log-dir", logDir)
	for _, want := range []string{
		"✗ telemetry: OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=grpc is not supported: only OTLP over HTTP (http/protobuf) is linked; metrics are not exported",
		"telemetry: the newest run that failed to export (cursor-wrap-1700000000000-s1.jsonl): traces not exported: connection refused",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "doctorsecret") {
		t.Errorf("doctor shows the headers:\n%s", stdout)
	}
}
