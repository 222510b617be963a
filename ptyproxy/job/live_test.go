package job

import (
	"slices"
	"testing"
	"time"
)

// TestApplyFansOut: a new configuration reaches every running attempt at
// once, and an MCP call's own timeouts stay as it set them.
func TestApplyFansOut(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	live := NewLive(cfg)
	var limits []int
	live.OnChange(func(c Config) { limits = append(limits, c.MCP.MaxConcurrent) })
	plain := &Job{Live: live}
	call := &Job{Live: live, Call: &Limits{Via: "mcp", Idle: 3 * time.Second, Hard: time.Minute}}
	plainCh, unfollow := live.follow(plain.reload)
	defer unfollow()
	callCh, unfollowCall := live.follow(call.reload)
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
	if !slices.Equal(limits, []int{9}) || live.Config().IdleTimeout != time.Second {
		t.Errorf("hooks saw %v; config %v", limits, live.Config().IdleTimeout)
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
