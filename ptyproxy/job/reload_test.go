package job

import (
	"slices"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// TestReloadFansOut: a new configuration reaches every running attempt at
// once, and an MCP call's own timeouts stay as it set them.
func TestReloadFansOut(t *testing.T) {
	t.Parallel()
	cfg := config.DefaultConfig()
	live := config.NewLive(cfg)
	plain := &Job{Live: live}
	call := &Job{Live: live, Call: &Limits{Via: "mcp", Idle: 3 * time.Second, Hard: time.Minute}}
	plainCh, unfollow := plain.follow()
	defer unfollow()
	callCh, unfollowCall := call.follow()
	next := cfg
	next.IdleTimeout, next.ToolGrace, next.MCP.MaxConcurrent = time.Second, time.Second, 9
	live.Apply(next)
	p, c := <-plainCh, <-callCh
	if p.Thresholds.IdleTimeout != time.Second || p.Record == nil || len(p.Record.Changed) != 3 {
		t.Errorf("plain attempt got %+v", p)
	}
	if c.Thresholds.IdleTimeout != 3*time.Second || c.Thresholds.HardTimeout != time.Minute || c.Thresholds.ToolGrace != time.Second ||
		c.Record == nil || !slices.Contains(c.Record.Pinned, "idle_timeout (set by the mcp call)") {
		t.Errorf("call got %+v", c)
	}
	unfollowCall()
	live.Apply(cfg)
	select {
	case <-callCh:
		t.Error("an attempt that ended still got a reload")
	default:
	}
	if p := <-plainCh; p.Thresholds.IdleTimeout != cfg.IdleTimeout || p.Record.Changed[0] != (sessionlog.Change{Key: "idle_timeout", Old: "1s", New: cfg.Value("idle_timeout")}) {
		t.Errorf("second reload %+v", p)
	}
}

// TestReloadedBudget: a budget a reload sets reaches the attempt, the
// call's tighter one still holding, and what it cannot do for the agent is
// said, as at the start.
func TestReloadedBudget(t *testing.T) {
	t.Parallel()
	cfg := config.DefaultConfig()
	live := config.NewLive(cfg)
	codex := &Job{Live: live, Cmd: Command{Profile: stream.Codex, Mode: stream.Events}, Call: &Limits{Via: "mcp", MaxTokens: 500}}
	ch, unfollow := codex.follow()
	defer unfollow()
	next := cfg
	next.MaxTokens, next.MaxCostUSD = 1000, 2
	live.Apply(next)
	rl := <-ch
	if rl.Thresholds.MaxTokens != 500 || rl.Thresholds.MaxCostUSD != 2 || len(rl.Warnings) != 2 ||
		!strings.HasPrefix(rl.Warnings[1], "max_cost_usd cannot be checked: codex states no cost") {
		t.Errorf("reload %+v", rl)
	}
	next.IdleTimeout = time.Minute
	live.Apply(next)
	if rl := <-ch; len(rl.Warnings) != 0 {
		t.Errorf("a reload that changed no budget warns %q", rl.Warnings)
	}
}

// TestProfileKeepAliveWait: an agent whose own stream watchdog gives up on
// keep-alives sooner (Codex's 300 s) gets its shorter bound, unless
// max_keepalive_wait is set.
func TestProfileKeepAliveWait(t *testing.T) {
	t.Parallel()
	build := func(flags map[string]string) config.Config {
		cfg, err := config.Build(config.File{}, nil, flags)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	def, set := build(nil), build(map[string]string{"max_keepalive_wait": "20m"})
	for _, tc := range []struct {
		p    *stream.Profile
		cfg  config.Config
		want time.Duration
	}{
		{stream.Codex, def, 330 * time.Second},
		{stream.Claude, def, 10 * time.Minute},
		{stream.Codex, set, 20 * time.Minute},
	} {
		j := &Job{Cmd: Command{Profile: tc.p, Mode: stream.Events}}
		if got := j.thresholds(tc.cfg).MaxKeepAliveWait; got != tc.want {
			t.Errorf("%s, max_keepalive_wait from the %s: %v, want %v", tc.p.Name, tc.cfg.Source("max_keepalive_wait"), got, tc.want)
		}
	}
}
