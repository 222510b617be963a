package e2e

import (
	"bytes"
	"os"
	"testing"
)

// The public record's stream shapes (issue 24), each replayed through the
// built binary from stream/testdata/wild with the outcome it must have.

// TestClaudeHooksBeforeInit: Claude Code 2.1.268 writes system events
// hook_started, hook_response and thinking_tokens before init
// (XhinLiang/awsl#18; the hook shapes as recorded in public test
// fixtures, thinking_tokens' fields reconstructed): the session is still
// named by init, and the run ends as an answer.
func TestClaudeHooksBeforeInit(t *testing.T) {
	t.Parallel()
	fixture := wild("claude-hooks-before-init.jsonl")
	want, _ := os.ReadFile(fixture)
	r := runWrapper(t, []string{steps("replay", fixture, "exit", "0")}, nil, "--agent", "claude", "--", "fix it")
	if r.code != 0 || !bytes.Equal(r.stdout, want) ||
		!bytes.Contains(r.stderr, []byte("session 5d1c0e7a-3b2f-4c9e-8a61-0f2b7d9e4c13 finished (exit 0)")) ||
		!bytes.Contains(r.stderr, []byte(`answer "Done: the tests pass."`)) {
		t.Errorf("exit %d, stdout identical %v; stderr %s", r.code, bytes.Equal(r.stdout, want), r.stderr)
	}
}

// TestClaudeErrorResultExitZero: Claude's result can say
// "subtype":"success","is_error":true and the CLI exit 0 on an API error
// (anthropics/claude-code#79500): an agent error, not an answer. Direct
// mode exits with the error's status (80, a rate limit, here); through the
// alias the agent's 0 stands.
func TestClaudeErrorResultExitZero(t *testing.T) {
	t.Parallel()
	agent := []string{steps("replay", wild("claude-api-error-success.jsonl"), "exit", "0")}
	r := runWrapper(t, agent, nil, "--agent", "claude", "--", "fix it")
	rec := firstRecord(t, r.logDir, "agent_error")
	if r.code != 80 || rec == nil || rec["kind"] != "rate_limit" || bytes.Contains(r.stderr, []byte("answer \"API Error")) {
		t.Errorf("direct: exit %d, record %v; stderr %s", r.code, rec, r.stderr)
	}
	r = runWrapper(t, agent, nil, "--agent", "claude", "--alias", "--", "-p", "--output-format", "stream-json", "--verbose", "fix it")
	if r.code != 0 {
		t.Errorf("alias: exit %d; stderr %s", r.code, r.stderr)
	}
}

// TestCursorPartialOutput: cursor-agent --stream-partial-output writes
// thinking deltas and text deltas, then replays the whole text
// (Nomadcxx/opencode-cursor#43, siteboon/claudecodeui#1045): the deltas
// are activity (3.6 s of them outlast a 2 s idle timeout), the output
// passes byte for byte, and the answer is the result's, not doubled.
func TestCursorPartialOutput(t *testing.T) {
	t.Parallel()
	fixture := wild("cursor-partial-output.jsonl")
	want, _ := os.ReadFile(fixture)
	r := runWrapper(t, []string{steps("replay", fixture, "exit", "0")}, nil, "--idle-timeout", "2s", "--", "--stream-partial-output", "say hello")
	if r.code != 0 || !bytes.Equal(r.stdout, want) || firstRecord(t, r.logDir, "hang_detected") != nil ||
		!bytes.Contains(r.stderr, []byte(`answer "Hello, world."`)) {
		t.Errorf("exit %d, stdout identical %v; stderr %s", r.code, bytes.Equal(r.stdout, want), r.stderr)
	}
}
