package mcpserver

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
	"cursor-wrap/words"
)

// runInput is the arguments of run_agent and start_agent.
type runInput struct {
	Prompt      string  `json:"prompt" jsonschema:"the task for the agent, as you would type it to the agent"`
	Workspace   string  `json:"workspace,omitempty" jsonschema:"the directory the agent works in (default: the server's working directory)"`
	Model       string  `json:"model,omitempty" jsonschema:"the model the agent uses (default: auto for cursor, the agent's own default for the others)"`
	Agent       string  `json:"agent,omitempty" jsonschema:"which agent CLI runs the task: a profile name such as cursor, claude, codex, gemini or opencode (default: the configured agent)"`
	Resume      string  `json:"resume,omitempty" jsonschema:"a session_id from an earlier result or from agent_sessions: the agent continues that session"`
	IdleTimeout string  `json:"idle_timeout,omitempty" jsonschema:"longest silence with no tool call running, as a Go duration such as 90s or 5m; clamped to the server's bounds"`
	HardTimeout string  `json:"hard_timeout,omitempty" jsonschema:"wall-clock cap on the whole run, as a Go duration such as 30m; clamped to the server's bounds"`
	MaxTokens   int     `json:"max_tokens,omitempty" jsonschema:"stop the run once the agent reports more tokens of input, cache writes and output than this (cache reads do not count); never above the server's max_tokens"`
	MaxCostUSD  float64 `json:"max_cost_usd,omitempty" jsonschema:"stop the run once the cost the agent states (Claude Code and OpenCode state one) passes this many US dollars; never above the server's max_cost_usd"`
}

// maxName bounds a model name or a session id.
const maxName = 256

// launchFor validates the arguments (an error is the caller's to fix) and
// fixes the run's timeouts: a requested one, or the config's default, is
// clamped to the [mcp] bounds. hard_timeout defaults to the config's, else
// to max_hard_timeout: a run never goes without a cap.
func launchFor(in runInput, cfg config.Config) (job.Request, job.Limits, error) {
	l := job.Request{Prompt: in.Prompt, Model: in.Model, Agent: in.Agent, Resume: in.Resume}
	lim := job.Limits{Via: "mcp"}
	if strings.TrimSpace(l.Prompt) == "" {
		if l.Resume == "" {
			return l, lim, errors.New("prompt is required")
		}
		l.Prompt = cfg.RestartPrompt
	}
	if strings.ContainsRune(l.Prompt, 0) {
		// An argument cannot carry it.
		return l, lim, errors.New("prompt holds a NUL character")
	}
	for name, v := range map[string]string{"resume": l.Resume, "model": l.Model} {
		if v != "" && !validName(v) {
			return l, lim, fmt.Errorf("%s %q is not a valid %s: one word of at most %d bytes, not starting with -", name, v, name, maxName)
		}
	}
	if l.Agent != "" {
		if _, err := stream.ProfileNamed(l.Agent); err != nil {
			return l, lim, fmt.Errorf("agent: %v", err)
		}
	}
	if in.Workspace != "" {
		dir, err := filepath.Abs(in.Workspace)
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(dir); err == nil && !fi.IsDir() {
				err = errors.New("not a directory")
			}
		}
		if err != nil {
			return l, lim, fmt.Errorf("workspace %s: %v", in.Workspace, err)
		}
		l.Workspace = dir
	}
	m := cfg.MCP
	hardDefault := cfg.HardTimeout
	if hardDefault == 0 {
		hardDefault = m.MaxHardTimeout
	}
	var err error
	if lim.Idle, err = bounded(&lim, "idle_timeout", in.IdleTimeout, cfg.IdleTimeout, m.MinIdleTimeout, m.MaxIdleTimeout); err != nil {
		return l, lim, err
	}
	if lim.Hard, err = bounded(&lim, "hard_timeout", in.HardTimeout, hardDefault, m.MinHardTimeout, m.MaxHardTimeout); err != nil {
		return l, lim, err
	}
	if in.MaxTokens < 0 {
		return l, lim, fmt.Errorf("max_tokens %d: want a positive whole number of tokens, or none", in.MaxTokens)
	}
	if !(in.MaxCostUSD >= 0) || math.IsInf(in.MaxCostUSD, 0) {
		return l, lim, fmt.Errorf("max_cost_usd %v: want a positive number of US dollars, or none", in.MaxCostUSD)
	}
	lim.MaxTokens = budget(&lim, watchdog.BudgetTokens, in.MaxTokens, cfg.MaxTokens, strconv.Itoa)
	lim.MaxCostUSD = budget(&lim, watchdog.BudgetCost, in.MaxCostUSD, cfg.MaxCostUSD, words.Dollars)
	return l, lim, nil
}

// budget is the budget a call asked for, no more than the config's own
// (the server's owner caps what its callers spend), noting a clamp in lim.
func budget[N int | float64](lim *job.Limits, name string, asked, configured N, show func(N) string) N {
	if asked > 0 && configured > 0 && asked > configured {
		lim.Clamped = append(lim.Clamped, config.Clamp{Name: name, Requested: show(asked), Applied: show(configured), Bound: name})
		return configured
	}
	return asked
}

// validName reports whether a model name or session id can be passed as
// an argument of its own: it must not read as a flag, and it is one word
// of printable characters (models such as "anthropic/claude-4.5" and ids
// such as "ses_01J…" or UUIDs are).
func validName(v string) bool {
	if len(v) > maxName || strings.HasPrefix(v, "-") {
		return false
	}
	for _, r := range v {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// bounded parses a requested duration (or takes def) and clamps it to
// [lo, hi], noting a clamp in lim.
func bounded(lim *job.Limits, name, text string, def, lo, hi time.Duration) (time.Duration, error) {
	d := def
	if text != "" {
		var err error
		if d, err = time.ParseDuration(text); err != nil || d <= 0 {
			return 0, fmt.Errorf("%s %q: want a positive Go duration such as 90s or 5m", name, text)
		}
	}
	applied, bound := d, ""
	switch {
	case d < lo:
		applied, bound = lo, "min_"+name
	case d > hi:
		applied, bound = hi, "max_"+name
	}
	if bound != "" {
		lim.Clamped = append(lim.Clamped, config.Clamp{Name: name, Requested: d.String(), Applied: applied.String(), Bound: "mcp." + bound, FromConfig: text == ""})
	}
	return applied, nil
}
