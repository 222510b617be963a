package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Budgets (issue 27, point 2): a run whose agent reports more than
// max_tokens or max_cost_usd is stopped as a hang is, with exit 86 and its
// own reason, and never restarted; what a budget cannot hold is said at
// the start.

// claudeMessage is a Claude Code assistant event, one content block of
// message id, with the message's usage so far (cache reads never count).
func claudeMessage(id string, in, out int) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"type":"message","role":"assistant","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":%d,"cache_read_input_tokens":90000,"output_tokens":%d}},"session_id":"s-1"}`, id, in, out)
}

const claudeResult = `{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-1","total_cost_usd":0.5,"usage":{"input_tokens":1000,"output_tokens":200}}`

// TestBudgetStopsMidStream: a claude-shaped agent that reports usage per
// message, each message repeated on its blocks, and goes on writing: the
// message that takes input, cache writes and output past max_tokens stops it, its tree
// with it, exit 86 with restarts to spare; the hang record, the summary,
// sessions and inspect say which budget, its limit and the total.
func TestBudgetStopsMidStream(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("line", initLine,
		"line", claudeMessage("msg_1", 400, 100), "line", claudeMessage("msg_1", 400, 100), "group-child",
		"line", claudeMessage("msg_2", 500, 1), "tick", "600", "100ms", "line", claudeResult)}, nil,
		"--agent", "claude", "--restarts", "2", "--idle-timeout", "60s", "--max-tokens", "1000", "--", "fix it")
	if r.code != 86 {
		t.Fatalf("exit %d, want 86; stderr %s", r.code, r.stderr)
	}
	if bytes.Contains(r.stdout, []byte(`"type":"result"`)) || r.took > 30*time.Second {
		t.Errorf("not stopped mid-stream: %s, result printed: %v", r.took, bytes.Contains(r.stdout, []byte(`"type":"result"`)))
	}
	if child := childOf(t, r.stdout); alive(child) {
		t.Errorf("the agent's child %d outlived the run", child)
	}
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*.jsonl"))
	rec := firstRecord(t, r.logDir, "hang_detected")
	if len(logs) != 1 || rec == nil {
		t.Fatalf("%d logs (want one attempt), hang record %v", len(logs), rec)
	}
	reason, _ := rec["reason"].(map[string]any)
	if reason["kind"] != "budget" || reason["budget"] != "max_tokens" || reason["budget_limit"] != 1000.0 || reason["budget_total"] != 1001.0 {
		t.Errorf("reason %v", reason)
	}
	exit := firstRecord(t, r.logDir, "exit")
	if exit["cause"] != "over_budget" || exit["status"] != 86.0 {
		t.Errorf("exit record %v", exit)
	}
	words := "the agent reported 1,001 tokens of input, cache writes and output, past the max_tokens budget of 1,000"
	if n := bytes.Count(r.stderr, []byte(words)); n < 2 || !bytes.Contains(r.stderr, []byte("passed a budget and was stopped")) {
		t.Errorf("stderr says it %d times (want the stop and the summary): %s", n, r.stderr)
	}
	if s := runRaw(t, nil, "sessions", "--log-dir", r.logDir); !bytes.Contains(s.stdout, []byte("over budget")) {
		t.Errorf("sessions: %s", s.stdout)
	}
	if s := runRaw(t, nil, "inspect", "--last", "--log-dir", r.logDir); !bytes.Contains(s.stdout, []byte("verdict  over budget")) || !bytes.Contains(s.stdout, []byte(words)) {
		t.Errorf("inspect: %s", s.stdout)
	}
}

// TestCostBudget: a cost budget holds on the cost the agent states (Claude
// states it in its result only, and is told so at the start); an agent
// that states none gets a warning at the start, in the log and on the
// console, and is never stopped by it.
func TestCostBudget(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("line", initLine, "line", claudeMessage("msg_1", 10, 10), "line", claudeResult)}, nil,
		"--agent", "claude", "--max-cost-usd", "0.25", "--", "fix it")
	atEnd := "max_cost_usd can be checked only at the end of the run: claude states its cost only in its result"
	passed := "the agent stated a cost of $0.5, past the max_cost_usd budget of $0.25, when the run had ended: nothing was stopped"
	if r.code != 0 || !bytes.Contains(r.stderr, []byte(atEnd)) || !bytes.Contains(r.stderr, []byte(passed)) {
		t.Errorf("claude: exit %d; stderr %s", r.code, r.stderr)
	}
	if !bytes.Contains(logText(t, r.logDir), []byte(atEnd)) || !bytes.Contains(logText(t, r.logDir), []byte(passed)) {
		t.Errorf("claude: the log does not say it:\n%s", logText(t, r.logDir))
	}
	codex := `{"type":"turn.completed","usage":{"input_tokens":5000,"cached_input_tokens":0,"output_tokens":5000}}`
	r = runWrapper(t, []string{steps("line", `{"type":"thread.started","thread_id":"t-1"}`, "line", codex)}, nil,
		"--agent", "codex", "--max-cost-usd", "0.01", "--", "fix it")
	none := "max_cost_usd cannot be checked: codex states no cost"
	if r.code != 0 || !bytes.Contains(r.stderr, []byte(none)) || !bytes.Contains(logText(t, r.logDir), []byte(none)) {
		t.Errorf("codex: exit %d; stderr %s", r.code, r.stderr)
	}
}

// TestTokenBudgetAtEnd: cursor-agent reports its usage only in its
// result: the start says the budget can be checked only then, and a
// result past it is said, not stopped (the run is over).
func TestTokenBudgetAtEnd(t *testing.T) {
	t.Parallel()
	result := `{"type":"result","subtype":"success","result":"done","session_id":"s-1","usage":{"inputTokens":900,"outputTokens":200}}`
	r := runWrapper(t, []string{steps("line", initLine, "line", result)}, nil, "--max-tokens", "1000", "--", "fix it")
	if r.code != 0 || !bytes.Contains(r.stderr, []byte("max_tokens can be checked only at the end of the run: cursor reports its usage only in its result")) ||
		!bytes.Contains(r.stderr, []byte("the agent reported 1,100 tokens of input, cache writes and output, past the max_tokens budget of 1,000, when the run had ended")) {
		t.Errorf("exit %d; stderr %s", r.code, r.stderr)
	}
}

// TestBudgetReloaded: a budget written into the config file while a run
// goes on applies at once: the run, already past it, stops with 86.
func TestBudgetReloaded(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "idle_timeout = \"60s\"\n")
	logDir := t.TempDir()
	cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir, "--config", cfg, "--agent", "claude", "--", "fix it")
	cmd.Env = append(testEnv(), steps("line", initLine, "line", claudeMessage("msg_1", 4000, 1000), "line", "ready", "tick", "600", "100ms", "line", claudeResult))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "ready" {
	}
	save(t, cfg, "idle_timeout = \"60s\"\nmax_tokens = 4000\n")
	go func() {
		for sc.Scan() {
		}
	}()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 86 {
		t.Fatalf("exit %v; stderr %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "the agent reported 5,000 tokens of input, cache writes and output, past the max_tokens budget of 4,000") {
		t.Errorf("stderr %s", stderr.String())
	}
}

// TestMCPBudget: a run_agent call through `cursor-wrap mcp` with its own
// max_tokens, below the server's, is stopped by it: the result says so,
// EBUDGET, kind budget, exit status 86, with the budget, limit and total.
func TestMCPBudget(t *testing.T) {
	t.Parallel()
	c := serve(t, mcpConfigWith(t, "agent = \"claude\"\nmax_tokens = 5000", ""), steps("line", initLine,
		"line", claudeMessage("msg_1", 800, 201), "tick", "600", "100ms", "line", claudeResult))
	res := c.tool("run_agent", "", map[string]any{"prompt": "fix it", "max_tokens": 1000, "idle_timeout": "60s"})
	want := "The agent was stopped by its budget: the agent reported 1,001 tokens of input, cache writes and output, past the max_tokens budget of 1,000."
	reason, _ := res.Structured["reason"].(map[string]any)
	if !res.IsError || res.str("code") != "EBUDGET" || res.str("kind") != "budget" || res.Structured["exit_status"] != 86.0 ||
		!strings.HasPrefix(res.text(), want) || reason["budget"] != "max_tokens" || reason["budget_limit"] != 1000.0 {
		t.Errorf("result %+v\nstderr:\n%s", res, c.stderr)
	}
}

// TestBudgetHoldsOverRestarts: a restart after a hang does not start the
// count again: the budget holds for the run, its attempts added up.
func TestBudgetHoldsOverRestarts(t *testing.T) {
	t.Parallel()
	once := filepath.Join(t.TempDir(), "hung")
	r := runWrapper(t, []string{steps("line", initLine, "line", claudeMessage("msg_1", 500, 100), "hang-once", once,
		"line", claudeMessage("msg_2", 400, 101), "tick", "600", "100ms", "line", claudeResult)}, nil,
		"--agent", "claude", "--restarts", "1", "--idle-timeout", "1s", "--max-tokens", "1500", "--", "fix it")
	logs, _ := filepath.Glob(filepath.Join(r.logDir, "cursor-wrap-*.jsonl"))
	if r.code != 86 || len(logs) != 2 || !bytes.Contains(r.stderr, []byte("the agent reported 1,701 tokens of input, cache writes and output, past the max_tokens budget of 1,500")) {
		t.Errorf("exit %d, %d attempts; stderr %s", r.code, len(logs), r.stderr)
	}
}

// TestBudgetNotified: a webhook asking for errors is told the run passed
// its budget, with the budget, the limit and the total.
func TestBudgetNotified(t *testing.T) {
	t.Parallel()
	h := newHook(t)
	r := runWrapper(t, []string{"CURSOR_WRAP_NOTIFY=" + h.URL, steps("line", initLine, "line", claudeMessage("msg_1", 900, 101), "hang")}, nil,
		"--agent", "claude", "--notify-on", "error", "--max-tokens", "1000", "--", "fix it")
	got := h.received()
	if r.code != 86 || len(got) != 1 || !bytes.Contains(got[0], []byte("past the max_tokens budget of 1,000")) {
		t.Errorf("exit %d, received %q; stderr %s", r.code, got, r.stderr)
	}
}
