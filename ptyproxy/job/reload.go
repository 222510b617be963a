package job

import (
	"slices"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// follow subscribes a running attempt to the configuration's updates,
// each turned into a reload the attempt applies. The returned func
// unsubscribes it.
func (j *Job) follow() (<-chan ptyproxy.Reload, func()) {
	reloads := make(chan ptyproxy.Reload, 1)
	cancel := j.Live.Subscribe(func(u config.Update) { ptyproxy.SendReload(reloads, j.reload(u)) })
	return reloads, cancel
}

// callKeys are the settings a call fixes for its whole run.
var callKeys = []string{"idle_timeout", "hard_timeout"}

// reload turns a configuration update into what the running attempt
// applies. A call's own timeouts stay as it set them, reported as pinned.
func (j *Job) reload(u config.Update) ptyproxy.Reload {
	if u.Err != nil {
		return ptyproxy.Reload{Err: u.Err}
	}
	changes, pinned := u.Changes, u.Pinned
	if j.Call != nil {
		var applied []config.Change
		for _, ch := range changes {
			if slices.Contains(callKeys, ch.Key) {
				pinned = append(slices.Clip(pinned), ch.Key+" (set by the "+j.Call.Via+" call)")
				continue
			}
			applied = append(applied, ch)
		}
		changes = applied
	}
	cfg := u.Config
	rl := ptyproxy.Reload{Thresholds: j.thresholds(cfg), Tick: cfg.TickInterval, KillGrace: cfg.KillGrace}
	// A reload that changed nothing here (a call's own timeouts are not
	// news, only pinned) is no record; the lists are never null.
	if len(changes) > 0 || len(pinned) > 0 {
		rec := &sessionlog.ConfigReloaded{Changed: []sessionlog.Change{}, Pinned: append([]string{}, pinned...)}
		for _, ch := range changes {
			rec.Changed = append(rec.Changed, sessionlog.Change(ch))
		}
		rl.Record = rec
	}
	// A budget the reload sets is said to be unable to hold as it is at
	// the start.
	if slices.ContainsFunc(changes, func(ch config.Change) bool { return ch.Key == "max_tokens" || ch.Key == "max_cost_usd" }) {
		rl.Warnings = j.Cmd.budgetCaveats(rl.Thresholds)
	}
	return rl
}

// thresholds are the config's, with the call's own timeouts if it set
// them and the tighter of its budgets and the config's, for the run's
// mode: one whose output is no stream of events is judged by evidence
// alone.
func (j *Job) thresholds(cfg config.Config) watchdog.Thresholds {
	th := cfg.Thresholds
	th.TextMode = j.Cmd.Mode == stream.Bytes
	// The agent's own bound on keep-alives only, unless the user set one.
	if own := j.Cmd.Profile.KeepAliveWait(); own > 0 && cfg.Source("max_keepalive_wait") == config.FromDefault {
		th.MaxKeepAliveWait = min(th.MaxKeepAliveWait, own)
	}
	if l := j.Call; l != nil {
		th.IdleTimeout, th.HardTimeout = l.Idle, l.Hard
		th.MaxTokens, th.MaxCostUSD = tighter(l.MaxTokens, th.MaxTokens), tighter(l.MaxCostUSD, th.MaxCostUSD)
	}
	return th
}
