package config

import (
	"slices"
	"testing"
)

// TestDiffPinnedByTheEnvironment: a variable pins a key as a flag does, and
// a reload that finds the file setting it to another value says so, naming
// the variable: the wrapper's own, or OpenTelemetry's standard one.
func TestDiffPinnedByTheEnvironment(t *testing.T) {
	t.Parallel()
	env := []string{"CURSOR_WRAP_KILL_GRACE=4s", "OTEL_EXPORTER_OTLP_ENDPOINT=http://std:4318"}
	path := writeConfig(t, "kill_grace = \"9s\"\notel_endpoint = \"http://file:4318\"\n")
	f, _ := ReadFile(path)
	cfg, err := Build(f, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	changes, pinned := Diff(cfg, cfg, f)
	want := []string{
		"kill_grace = 9s in the file, held at 4s by $CURSOR_WRAP_KILL_GRACE",
		"otel_endpoint = http://file:4318 in the file, held at http://std:4318 by $OTEL_EXPORTER_OTLP_ENDPOINT",
	}
	if len(changes) != 0 || !slices.Equal(pinned, want) {
		t.Errorf("changes %v, pinned %q", changes, pinned)
	}
}
