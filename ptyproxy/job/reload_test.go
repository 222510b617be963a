package job

import (
	"slices"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/config"
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
	if p.Thresholds.IdleTimeout != time.Second || len(p.Changes) != 3 {
		t.Errorf("plain attempt got %+v", p)
	}
	if c.Thresholds.IdleTimeout != 3*time.Second || c.Thresholds.HardTimeout != time.Minute || c.Thresholds.ToolGrace != time.Second ||
		!slices.Contains(c.Pinned, "idle_timeout (set by the mcp call)") {
		t.Errorf("call got %+v", c)
	}
	unfollowCall()
	live.Apply(cfg)
	select {
	case <-callCh:
		t.Error("an attempt that ended still got a reload")
	default:
	}
	if p := <-plainCh; p.Thresholds.IdleTimeout != cfg.IdleTimeout {
		t.Errorf("second reload %+v", p)
	}
}
