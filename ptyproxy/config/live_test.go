package config

import (
	"log/slog"
	"os"
	"testing"
	"time"
)

// TestApplyTellsSubscribers: a new configuration reaches every subscriber
// at once, with what changed, and none once it cancelled.
func TestApplyTellsSubscribers(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	live := NewLive(cfg)
	var first, second []Update
	cancelFirst := live.Subscribe(func(u Update) { first = append(first, u) })
	defer live.Subscribe(func(u Update) { second = append(second, u) })()
	next := cfg
	next.IdleTimeout, next.ToolGrace, next.MCP.MaxConcurrent = time.Second, time.Second, 9
	live.Apply(next)
	for _, got := range [][]Update{first, second} {
		if len(got) != 1 || got[0].Config.MCP.MaxConcurrent != 9 || len(got[0].Changes) != 3 || got[0].Err != nil {
			t.Errorf("subscriber heard %+v", got)
		}
	}
	if live.Config().IdleTimeout != time.Second {
		t.Errorf("config %v", live.Config().IdleTimeout)
	}
	cancelFirst()
	live.Apply(cfg)
	if len(first) != 1 {
		t.Errorf("a cancelled subscriber still heard %+v", first[1:])
	}
	if len(second) != 2 || second[1].Config.IdleTimeout != cfg.IdleTimeout {
		t.Errorf("second update %+v", second[1:])
	}
}

// TestReloadTellsWhy: a file that cannot be applied (it does not parse,
// or a value fails validation) keeps the last good values, and
// subscribers hear why; a valid one is heard with its changes.
func TestReloadTellsWhy(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `idle_timeout = "30s"`)
	live, err := LoadLive(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var heard []Update
	defer live.Subscribe(func(u Update) { heard = append(heard, u) })()
	rewrite := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		live.reload(slog.New(slog.DiscardHandler))
	}
	rewrite(`idle_timeout = "soon"`)
	// Parsed, but a value validation refuses: not applied either.
	rewrite(`idle_timeout = "-5s"`)
	if got := live.Config().IdleTimeout; got != 30*time.Second {
		t.Errorf("idle_timeout %v in force after an invalid save, want 30s kept", got)
	}
	rewrite(`idle_timeout = "1s"`)
	if len(heard) != 3 || heard[0].Err == nil || heard[0].Config.IdleTimeout != 30*time.Second ||
		heard[1].Err == nil || heard[1].Config.IdleTimeout != 30*time.Second {
		t.Fatalf("heard %+v", heard)
	}
	if u := heard[2]; u.Err != nil || len(u.Changes) != 1 || u.Changes[0] != (Change{Key: "idle_timeout", Old: "30s", New: "1s"}) {
		t.Errorf("then heard %+v", u)
	}
}

// TestDeletedFileKeepsEveryValue: every key the file set, the tables'
// too, keeps its value when the file is deleted; a new file then applies
// whole.
func TestDeletedFileKeepsEveryValue(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `hard_timeout = "4s"
idle_timeout = "7s"
on_hang = "true"
[tool_timeouts]
shellToolCall = "3m"
[mcp]
max_concurrent = 2
max_hard_timeout = "9m"
`)
	live, err := LoadLive(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := live.Config()
	var heard []Update
	defer live.Subscribe(func(u Update) { heard = append(heard, u) })()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	live.reload(slog.New(slog.DiscardHandler))
	for _, key := range Keys() {
		if got := live.Config(); got.Value(key) != want.Value(key) {
			t.Errorf("%s: %s after the file was deleted, was %s", key, got.Value(key), want.Value(key))
		}
	}
	if len(heard) != 0 {
		t.Errorf("subscribers heard %+v", heard)
	}
	if err := os.WriteFile(path, []byte(`idle_timeout = "8s"`), 0o600); err != nil {
		t.Fatal(err)
	}
	live.reload(slog.New(slog.DiscardHandler))
	if got := live.Config(); got.IdleTimeout != 8*time.Second || got.HardTimeout != 0 || got.MCP.MaxConcurrent != 4 {
		t.Errorf("the new file applied as idle %v hard %v max_concurrent %d", got.IdleTimeout, got.HardTimeout, got.MCP.MaxConcurrent)
	}
}
