package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/notify"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// Validate checks each value; the error joins a *watchdog.InvalidError per
// bad value, keyed by its config key, so that Build can say where the
// value was written.
func (c *Config) Validate() error {
	errs := []error{c.Thresholds.Validate()}
	bad := func(key, format string, a ...any) {
		errs = append(errs, &watchdog.InvalidError{Key: key, Problem: fmt.Sprintf(format, a...)})
	}
	// A tick is a backstop wake-up: a tiny one would spin a core.
	if c.TickInterval < minTick {
		bad("tick_interval", "%v is less than %v", c.TickInterval, minTick)
	}
	switch {
	case c.KillGrace < 0:
		bad("kill_grace", "%v is negative", c.KillGrace)
	case c.KillGrace > time.Minute:
		bad("kill_grace", "%v is more than 1m", c.KillGrace)
	}
	if c.Restarts < 0 || c.Restarts > 100 {
		bad("restarts", "%d is not between 0 and 100", c.Restarts)
	}
	if c.LogKeep < 0 {
		bad("log_keep", "%d is negative", c.LogKeep)
	}
	if c.StdinWait < 0 {
		bad("stdin_wait", "%v is negative", c.StdinWait)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log_level", "%q is not debug, info, warn or error", c.LogLevel)
	}
	if c.LogDir == "" {
		bad("log_dir", "must not be empty")
	}
	if c.Agent != "" {
		if _, err := stream.ProfileNamed(c.Agent); err != nil {
			bad("agent", "%v%s", err, didYouMean(c.Agent, stream.ProfileNames()))
		}
	}
	for _, t := range c.Notify {
		if err := notify.CheckTarget(t); err != nil {
			bad("notify", "%v%s", err, targetHint(t))
		}
	}
	for _, e := range c.NotifyOn {
		if names := notify.Names(notify.Events); !slices.Contains(names, e) {
			bad("notify_on", "%q is not one of %s%s", e, strings.Join(names, ", "), didYouMean(e, names))
		}
	}
	c.validateOTel(bad)
	m := c.MCP
	if m.MinIdleTimeout <= 0 || m.MinIdleTimeout > m.MaxIdleTimeout {
		bad("mcp.min_idle_timeout", "must be positive and no more than max_idle_timeout (%v)", m.MaxIdleTimeout)
	}
	if m.MinHardTimeout <= 0 || m.MinHardTimeout > m.MaxHardTimeout {
		bad("mcp.min_hard_timeout", "must be positive and no more than max_hard_timeout (%v)", m.MaxHardTimeout)
	}
	if m.MaxConcurrent < 1 {
		bad("mcp.max_concurrent", "%d is less than 1", m.MaxConcurrent)
	}
	return errors.Join(errs...)
}

// minTick is the shortest tick_interval.
const minTick = 10 * time.Millisecond

// targetHint says what a notify target that is not one may have meant:
// the URL with its scheme written right, or desktop. Like the error it
// goes with, it shows a URL without its path, which may hold a token.
func targetHint(t string) string {
	scheme, rest, isURL := strings.Cut(t, "://")
	switch {
	case isURL:
		if s := Suggest(strings.ToLower(scheme), []string{"http", "https"}); s != "" {
			return fmt.Sprintf(" (did you mean %q?)", notify.Label(s+"://"+rest))
		}
		return ""
	case strings.ContainsAny(t, "./"):
		return fmt.Sprintf(" (did you mean %q?)", notify.Label("https://"+t))
	}
	return didYouMean(t, []string{notify.Desktop})
}

// validateOTel checks the otel_ settings: a URL the exporter can send to,
// headers it can send, a flush that ends.
func (c *Config) validateOTel(bad func(key, format string, a ...any)) {
	o := c.OTel
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("otel_endpoint", "%q is not an http:// or https:// URL, like http://localhost:4318", o.Endpoint)
		}
	}
	for i, h := range o.Headers {
		if name, _, ok := strings.Cut(h, "="); !ok || strings.TrimSpace(name) == "" {
			// It may be a secret: it is not shown.
			bad("otel_headers", "header %d of %d is not name=value", i+1, len(o.Headers))
		}
	}
	if o.FlushTimeout <= 0 || o.FlushTimeout > time.Minute {
		bad("otel_flush_timeout", "%v is not more than 0 and at most 1m", o.FlushTimeout)
	}
}
