package config

import "testing"

// TestDiffPinnedByTheEnvironment: a variable pins a key as a flag does, and
// a reload that finds the file setting it to another value says so.
func TestDiffPinnedByTheEnvironment(t *testing.T) {
	t.Parallel()
	env := []string{"CURSOR_WRAP_KILL_GRACE=4s"}
	path := writeConfig(t, "kill_grace = \"9s\"\n")
	f, _ := ReadFile(path)
	cfg, err := Build(f, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	changes, pinned := Diff(cfg, cfg, f)
	if len(changes) != 0 || len(pinned) != 1 || pinned[0] != "kill_grace = 9s in the file, held at 4s by the env" {
		t.Errorf("changes %v, pinned %q", changes, pinned)
	}
}
