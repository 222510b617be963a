package config

import (
	"context"
	"log/slog"
	"os"
	"strings"
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

// console is a console logger whose lines, level and message only, a
// test reads back.
func console(t *testing.T) (*slog.Logger, *strings.Builder) {
	t.Helper()
	var b strings.Builder
	h := slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	return slog.New(h), &b
}

// TestReloadConsole: each reload is one console line saying what changed,
// what a flag holds, or why the file was not applied; a save that changes
// nothing, and a file gone, say nothing above debug and tell no one.
func TestReloadConsole(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, "idle_timeout = \"30s\"\nkill_grace = \"4s\"\n")
	live, err := LoadLive(path, map[string]string{"kill_grace": "4s"})
	if err != nil {
		t.Fatal(err)
	}
	if live.Path() != path {
		t.Errorf("path %q, want %q", live.Path(), path)
	}
	var heard []Update
	defer live.Subscribe(func(u Update) { heard = append(heard, u) })()
	for _, step := range []struct {
		text  string // "" removes the file
		line  string
		heard int
	}{
		{"idle_timeout = \"30s\"\nkill_grace = \"4s\"\n", "", 0},
		{"idle_timeout = \"30s\"\nkill_grace = \"9s\"\n", `level=INFO msg="config reloaded: kill_grace = 9s in the file, held at 4s by the flag"`, 1},
		{"idle_timeout = \"1s\"\nkill_grace = \"9s\"\nlog_level = \"debug\"\n",
			`level=INFO msg="config reloaded: idle_timeout 30s → 1s, log_level info → debug, kill_grace = 9s in the file, held at 4s by the flag"`, 1},
		{"idle_timeout = \"-5s\"\n", `level=WARN msg="config not reloaded, keeping the last good values: ` + path + `:1: idle_timeout: -5s is negative"`, 1},
		{"", `level=DEBUG msg="config file ` + path + ` is gone: keeping the current values"`, 0},
	} {
		log, out := console(t)
		heard = nil
		if step.text == "" {
			os.Remove(path)
		} else if err := os.WriteFile(path, []byte(step.text), 0o600); err != nil {
			t.Fatal(err)
		}
		live.reload(log)
		want := ""
		if step.line != "" {
			want = step.line + "\n"
		}
		if out.String() != want || len(heard) != step.heard {
			t.Errorf("after saving %q: console %q, %d updates; want %q, %d", step.text, out.String(), len(heard), want, step.heard)
		}
	}
	// The console's level follows log_level.
	if lv := live.Level().Level(); lv != slog.LevelDebug {
		t.Errorf("console level %v after log_level = \"debug\"", lv)
	}
}

// TestWatchReloads: Watch reloads the configuration when its file is
// saved, and the subscribers hear it; a configuration no file backs is not
// watched.
func TestWatchReloads(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `idle_timeout = "30s"`)
	live, err := LoadLive(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	updates := make(chan Update, 4)
	defer live.Subscribe(func(u Update) { updates <- u })()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	live.Watch(ctx, slog.New(slog.DiscardHandler))
	NewLive(DefaultConfig()).Watch(ctx, slog.New(slog.DiscardHandler))
	if err := os.WriteFile(path, []byte(`idle_timeout = "2s"`), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updates:
		if u.Err != nil || live.Config().IdleTimeout != 2*time.Second {
			t.Errorf("heard %+v; idle_timeout %v", u, live.Config().IdleTimeout)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no reload")
	}
}

// TestLoadLiveRefuses: a configuration that does not load is an error, not
// a wrapper running on values nobody asked for.
func TestLoadLiveRefuses(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `idle_timeout = "-1s"`)
	if live, err := LoadLive(path, nil); live != nil || err == nil || !strings.Contains(err.Error(), path+":1: idle_timeout: -1s is negative") {
		t.Errorf("LoadLive: %v, %v", live, err)
	}
}
