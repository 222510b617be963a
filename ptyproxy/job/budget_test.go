package job

import (
	"strings"
	"testing"

	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// TestBudgetCaveats: what each agent's budgets cannot hold is said, and
// nothing for a budget that holds mid-run or for no budget at all.
func TestBudgetCaveats(t *testing.T) {
	t.Parallel()
	both := watchdog.Thresholds{MaxTokens: 1000, MaxCostUSD: 1}
	for _, tc := range []struct {
		name string
		cmd  Command
		th   watchdog.Thresholds
		want []string // the start of each sentence
	}{
		{"no budget", Command{Profile: stream.Cursor, Mode: stream.Events}, watchdog.Thresholds{}, nil},
		{"opencode", Command{Profile: stream.OpenCode, Mode: stream.Events}, both, nil},
		{"claude", Command{Profile: stream.Claude, Mode: stream.Events}, both, []string{"max_cost_usd can be checked only at the end of the run: claude states"}},
		{"cursor", Command{Profile: stream.Cursor, Mode: stream.Events}, both, []string{"max_tokens can be checked only at the end of the run: cursor reports",
			"max_cost_usd cannot be checked: cursor states no cost"}},
		{"codex, tokens", Command{Profile: stream.Codex, Mode: stream.Events}, watchdog.Thresholds{MaxTokens: 10}, []string{"max_tokens can be checked only at the end"}},
		{"text mode", Command{Profile: stream.Claude, Mode: stream.Bytes}, both, []string{"the budgets (max_tokens, max_cost_usd) cannot be checked"}},
	} {
		got := tc.cmd.budgetCaveats(tc.th)
		ok := len(got) == len(tc.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.HasPrefix(got[i], tc.want[i])
		}
		if !ok {
			t.Errorf("%s: %q, want %q…", tc.name, got, tc.want)
		}
	}
}

// TestCallBudgets: a call's budget applies when tighter than the config's
// (none counting as no limit), so a budget reloaded into the config holds
// too.
func TestCallBudgets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ call, config, want int }{{0, 0, 0}, {100, 0, 100}, {0, 100, 100}, {50, 100, 50}, {200, 100, 100}} {
		if got := tighter(tc.call, tc.config); got != tc.want {
			t.Errorf("call %d, config %d: %d, want %d", tc.call, tc.config, got, tc.want)
		}
	}
}
