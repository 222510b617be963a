package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Waiting on a person (issue 32, point 3): a question counts only while
// the agent waits for input on its terminal or its stdin, as the kernel
// tells. Words while it does not wait (a tool's output, a log line, an
// answer) never stop a run, whatever they hold; an agent that asks and
// then waits is stopped AskWait (5 s) after the question.

const yesNoAbort = "Do you want to continue? [Y/n] Abort."

// Stream lines shaped as Codex's and Claude Code's (../shared/real-captures).
const (
	codexThread    = `{"type":"thread.started","thread_id":"t-1"}`
	codexTurn      = `{"type":"turn.started"}`
	codexToolStart = `{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'apt-get install jq'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`
	codexToolDone  = `{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc 'apt-get install jq'","aggregated_output":"","exit_code":1,"status":"failed"}}`
	codexAnswer    = `{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"apt-get asked to continue (y/n); jq is not installed."}}`
	codexDone      = `{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":24}}`
	claudeInit     = `{"type":"system","subtype":"init","session_id":"c-1"}`
	claudeTool     = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"npm init","timeout":120000}}]},"session_id":"c-1"}`
	claudeToolDone = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Is this OK? (yes) [y/N]","is_error":false}]},"session_id":"c-1"}`
	claudeAnswer   = `{"type":"assistant","message":{"content":[{"type":"text","text":"npm init asked: Is this OK? [y/N]"}]},"session_id":"c-1"}`
	claudeAnswered = `{"type":"result","subtype":"success","is_error":false,"result":"npm init asked: Is this OK? [y/N]","session_id":"c-1"}`
)

// pause outlasts the wait for a person: a question would have stopped
// the run by then.
const pause = "6s"

// TestWordsAreNoQuestion: Codex-shaped and Claude-shaped runs whose tools,
// logs and answers hold [Y/n], (y/n) and [y/N], on stderr and in answers,
// during tool calls and after, in stream-json and text mode, directly and
// through the alias, while the agent waits on no input: each ends with
// the run's own status, never 85, and nothing says it waits on a person.
func TestWordsAreNoQuestion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		steps []string
		args  []string
		want  int
	}{
		{"codex --json: a tool's [Y/n] on stderr during its call",
			[]string{"line", codexThread, "line", codexTurn, "line", codexToolStart, "err", "Reading package lists...", "err", yesNoAbort,
				"sleep", pause, "line", codexToolDone, "line", codexAnswer, "line", codexDone, "exit", "0"},
			[]string{"--agent", "codex", "--", "install jq"}, 0},
		{"codex exec text, through the alias: a tool's [Y/n] on stderr, then the answer",
			[]string{"err", "exec /bin/bash -lc 'apt-get install jq' in /w", "err", yesNoAbort,
				"sleep", pause, "line", "apt-get asked to continue (y/n); jq is not installed.", "exit", "0"},
			[]string{"--alias", "--agent", "codex", "--", "exec", "install jq"}, 0},
		{"claude stream-json: a [y/N] log line on stderr while a call with a 120 s timeout runs",
			[]string{"line", claudeInit, "line", claudeTool, "err", "npm warn: Is this OK? (yes) [y/N]",
				"sleep", pause, "line", claudeToolDone, "line", claudeAnswer, "line", claudeAnswered, "exit", "0"},
			[]string{"--agent", "claude", "--", "run npm init"}, 0},
		{"claude stream-json: [y/N] on stderr after the call, then the answer",
			[]string{"line", claudeInit, "line", claudeTool, "line", claudeToolDone, "err", "hook: overwrite CHANGELOG? [y/N]",
				"sleep", pause, "line", claudeAnswer, "line", claudeAnswered, "exit", "0"},
			[]string{"--agent", "claude", "--", "run npm init"}, 0},
		{"claude text: an answer that quotes (y/n), then a pause before the exit",
			[]string{"line", "Run npm init and answer its prompt (y/n) with y.", "sleep", pause, "exit", "0"},
			[]string{"--agent", "claude", "--", "-p", "--output-format", "text", "how do I start a package?"}, 0},
		{"cursor text, through the alias: a (y/n) log line on stderr, then the answer and a failure",
			[]string{"err", "git: Proceed with the rebase? (y/n)", "sleep", pause, "line", "The rebase did not apply.", "exit", "3"},
			[]string{"--alias", "--", "-p", "rebase it"}, 3},
		{"cursor text: a [y/N] log line on stderr, then the answer and an exit 0",
			[]string{"err", "warning: overwrite package.json? [y/N]", "sleep", "1500ms", "line", "Done: nothing was overwritten.", "exit", "0"},
			[]string{"--", "-p", "--output-format", "text", "fix it"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runWrapper(t, []string{steps(tc.steps...)}, nil, append([]string{"--idle-timeout", "60s"}, tc.args...)...)
			if r.code != tc.want || firstRecord(t, r.logDir, "hang_detected") != nil || bytes.Contains(r.stderr, []byte("waiting on a person")) {
				t.Errorf("exit %d, want %d; stderr %s", r.code, tc.want, r.stderr)
			}
		})
	}
}

// TestIdleNotAsking: the trust prompt, then an agent that sleeps without
// reading anything, and a question scrolled up by later lines, then a
// wait on the terminal, are judged by the idle rule: neither asks.
func TestIdleNotAsking(t *testing.T) {
	t.Parallel()
	for name, agent := range map[string][]string{
		"no wait":     {"err", trustPrompt, "err", trustFix, "hang"},
		"scrolled up": {"line", "Apply these changes? [y/N]", "repeat", "10", "patched a file", "wait-tty"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runWrapper(t, []string{steps(agent...)}, nil, "--idle-timeout", "8s", "--", "fix it")
			rec := firstRecord(t, r.logDir, "hang_detected")
			if r.code != 124 || rec == nil || rec["reason"].(map[string]any)["kind"] != "idle" {
				t.Errorf("exit %d, record %v; stderr %s", r.code, rec, r.stderr)
			}
		})
	}
}

// TestWaitOnTheTerminal: the trust prompt on stderr, then an agent whose
// event loop waits to read its terminal (Go's netpoll on /dev/tty): exit
// 85 about 5 s after the prompt, as the wrapper's own log saw it, the
// hang record naming what it waited on.
func TestWaitOnTheTerminal(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("line", initLine, "err", trustPrompt, "err", trustFix, "wait-tty")}, nil, "--idle-timeout", "60s", "--", "fix it")
	rec := firstRecord(t, r.logDir, "hang_detected")
	if r.code != 85 || rec == nil {
		t.Fatalf("exit %d, record %v; stderr %s", r.code, rec, r.stderr)
	}
	if reason := rec["reason"].(map[string]any); reason["kind"] != "person" || reason["waiting_on"] != "terminal" {
		t.Errorf("reason %v", reason)
	}
	took := recordTime(t, r.logDir, "hang_detected", false).Sub(recordTime(t, r.logDir, "stderr", true))
	t.Logf("stopped %s after the prompt's last line, as the wrapper's log saw it", took)
	if took < 4500*time.Millisecond || took > 10*time.Second {
		t.Errorf("stopped %s after the prompt, want about 5s", took)
	}
}

// TestWaitOnStdin: a question on the terminal, then an agent blocked in a
// read of its stdin pipe, which the caller holds open: exit 85, the hang
// record saying it waited on its stdin.
func TestWaitOnStdin(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	defer pr.Close()
	r := wrapperRun(t, func(cmd *exec.Cmd) {
		cmd.Stdin = pr
		cmd.Env = append(cmd.Env, steps("line", initLine, "raw", "Overwrite the lock file? [y/N] ", "wait-stdin"))
	}, "--stdin-wait", "0", "--idle-timeout", "60s", "--", "fix it")
	rec := firstRecord(t, r.logDir, "hang_detected")
	if r.code != 85 || rec == nil || rec["reason"].(map[string]any)["waiting_on"] != "stdin" ||
		!strings.Contains(string(r.stderr), `asked "Overwrite the lock file? [y/N]"`) {
		t.Errorf("exit %d, record %v; stderr %s", r.code, rec, r.stderr)
	}
}
