package oteltest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/sessionlog"
)

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	initLine    = `{"type":"system","subtype":"init","session_id":"s-1","model":"gpt-test"}`
	resultLine  = `{"type":"result","subtype":"success","result":"done","session_id":"s-1"}`
)

func toolStarted(id, command string, timeoutMS int) string {
	return fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":%q,"tool_call":{"shellToolCall":{"args":{"command":%q,"timeout":%d}}}}`, id, command, timeoutMS)
}

func toolDone(id string) string {
	return fmt.Sprintf(`{"type":"tool_call","subtype":"completed","call_id":%q,"tool_call":{"shellToolCall":{"result":{"success":{}}}}}`, id)
}

func steps(s ...string) string {
	b, _ := json.Marshal(s)
	return "FAKEAGENT_STEPS=" + string(b)
}

// commands reads the command records of a run's logs, by attempt.
func commands(t *testing.T, logDir string) []*sessionlog.Command {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(logDir, "cursor-wrap-*.jsonl"))
	var out []*sessionlog.Command
	for _, l := range logs {
		f, err := os.Open(l)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(f).ReadBytes('\n')
		f.Close()
		if _, rec, err := sessionlog.Decode(line); err == nil {
			if c, ok := rec.(*sessionlog.Command); ok {
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b *sessionlog.Command) int { return a.Attempt - b.Attempt })
	return out
}

// traceOf is the trace id of a run, from its first command record.
func traceOf(t *testing.T, r result) string {
	t.Helper()
	cs := commands(t, r.logDir)
	if len(cs) == 0 || cs[0].Trace == nil {
		t.Fatalf("no trace in the command record; exit %d, stderr %s", r.code, r.stderr)
	}
	return strings.Split(cs[0].Trace.TraceParent, "-")[1]
}

// TestNormalRunTrace: a run under a caller's TRACEPARENT is a child of the
// caller's span: the run, its attempt, its tool call, each under the one
// before; the agent was given the attempt's span, which its command record
// says.
func TestNormalRunTrace(t *testing.T) {
	needBackend(t)
	t.Parallel()
	agent := filepath.Join(t.TempDir(), "cursor-agent")
	script := "#!/bin/sh\necho \"TRACEPARENT=$TRACEPARENT\" >&2\n"
	for _, l := range []string{initLine, toolStarted("c1", "make test", 60000), toolDone("c1"), resultLine} {
		script += "echo '" + l + "'\n"
	}
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := wrap(t, backend.otlp, []string{"TRACEPARENT=00-" + callerTrace + "-" + callerSpan + "-01"}, "--agent-bin", agent, "--agent", "cursor", "--", "fix the build")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
	}
	spans := backend.trace(t, callerTrace, 3)
	root, attempt, tool := one(t, spans, "invoke_agent cursor"), one(t, spans, "cursor_wrap.attempt"), one(t, spans, "execute_tool shellToolCall")
	if root.parent() != callerSpan || attempt.parent() != root.SpanID || tool.parent() != attempt.SpanID {
		t.Errorf("parents: run under %s (want the caller's %s), attempt under %s (run %s), tool under %s (attempt %s)",
			root.parent(), callerSpan, attempt.parent(), root.SpanID, tool.parent(), attempt.SpanID)
	}
	given := "TRACEPARENT=00-" + callerTrace + "-" + attempt.SpanID + "-01"
	cs := commands(t, r.logDir)
	if !strings.Contains(r.stderr, given) || len(cs) != 1 || cs[0].Trace == nil || "TRACEPARENT="+cs[0].Trace.TraceParent != given {
		t.Errorf("the agent was not given the attempt's span (%s), or its command record does not say so: %+v; stderr %s", given, cs[0].Trace, r.stderr)
	}
	for key, want := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "cursor", "gen_ai.conversation.id": "s-1",
		"gen_ai.request.model": "auto", "gen_ai.response.model": "gpt-test", "cursor_wrap.exit.status": "0", "cursor_wrap.exit.cause": "exited", "cursor_wrap.restarts": "0"} {
		if got := root.tag(key); got != want {
			t.Errorf("the run's %s = %q, want %q", key, got, want)
		}
	}
	for key, want := range map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shellToolCall", "gen_ai.tool.call.id": "c1",
		"cursor_wrap.tool.declared_timeout_ms": "60000", "cursor_wrap.tool.outcome": "completed"} {
		if got := tool.tag(key); got != want {
			t.Errorf("the tool call's %s = %q, want %q", key, got, want)
		}
	}
	if root.tag("error") != "" || tool.tag("gen_ai.tool.call.arguments") != "" {
		t.Errorf("a success marked failed, or a command sent without the content switch: %+v", root.Tags)
	}
}

// TestHangWithToolOpen: a hang in a tool call past its deadline shows as a
// failed run (error.type hung), the verdict and the kill as events on the
// attempt, the call as hung, with its deadline.
func TestHangWithToolOpen(t *testing.T) {
	needBackend(t)
	t.Parallel()
	r := wrap(t, backend.otlp, []string{steps("line", initLine, "line", toolStarted("c9", "sleep 600", 200), "hang")},
		"--idle-timeout", "1s", "--tool-grace", "0s", "--kill-grace", "1s", "--", "fix it")
	if r.code != 124 {
		t.Fatalf("exit %d, want 124; stderr %s", r.code, r.stderr)
	}
	spans := backend.trace(t, traceOf(t, r), 3)
	root, attempt, tool := one(t, spans, "invoke_agent cursor"), one(t, spans, "cursor_wrap.attempt"), one(t, spans, "execute_tool shellToolCall")
	if root.tag("error") != "true" || root.tag("error.type") != "hung" || root.tag("cursor_wrap.hang.kind") != "tool" ||
		root.tag("cursor_wrap.hang.tool_name") != "shellToolCall" || root.tag("cursor_wrap.exit.status") != "124" {
		t.Errorf("the run: %+v", root.Tags)
	}
	if evs := attempt.events(); !slices.Contains(evs, "cursor_wrap.hang_detected") || !slices.Contains(evs, "cursor_wrap.kill") {
		t.Errorf("the attempt's events: %v", evs)
	}
	if h := attempt.event("cursor_wrap.hang_detected"); h["cursor_wrap.hang.kind"] != "tool" || h["cursor_wrap.open_calls.ids"] == "" {
		t.Errorf("the hang event: %v", h)
	}
	if tool.tag("cursor_wrap.tool.outcome") != "hung" || tool.tag("error") != "true" || tool.tag("cursor_wrap.tool.declared_timeout_ms") != "200" ||
		tool.tag("cursor_wrap.tool.budget_ms") == "" || tool.tag("gen_ai.tool.call.id") != "c9" {
		t.Errorf("the call: %+v", tool.Tags)
	}
}

// TestRestartTrace: a run that hung and was restarted is one trace: two
// attempts under the run, the second with its restart event.
func TestRestartTrace(t *testing.T) {
	needBackend(t)
	t.Parallel()
	r := wrap(t, backend.otlp, []string{steps("resumed-answer", "line", initLine, "hang")},
		"--restarts", "1", "--idle-timeout", "1s", "--kill-grace", "1s", "--", "fix it")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", r.code, r.stderr)
	}
	cs := commands(t, r.logDir)
	if len(cs) != 2 || cs[0].Trace == nil || cs[1].Trace == nil || cs[0].Trace.RunSpan != cs[1].Trace.RunSpan || cs[0].Trace.TraceParent == cs[1].Trace.TraceParent {
		t.Fatalf("the attempts' trace records: %d of them", len(cs))
	}
	spans := backend.trace(t, traceOf(t, r), 3)
	root, attempts := one(t, spans, "invoke_agent cursor"), byName(spans, "cursor_wrap.attempt")
	if len(attempts) != 2 || attempts[0].parent() != root.SpanID || attempts[1].parent() != root.SpanID {
		t.Fatalf("%d attempts under the run", len(attempts))
	}
	slices.SortFunc(attempts, func(a, b span) int { return int(a.StartTime - b.StartTime) })
	if root.tag("cursor_wrap.restarts") != "1" || root.tag("error") != "" || !slices.Contains(root.events(), "cursor_wrap.restart") {
		t.Errorf("the run: %+v, events %v", root.Tags, root.events())
	}
	if attempts[0].tag("error.type") != "hung" || !slices.Contains(attempts[1].events(), "cursor_wrap.restart") || attempts[1].tag("cursor_wrap.attempt") != "2" {
		t.Errorf("the attempts: %+v / %+v", attempts[0].Tags, attempts[1].events())
	}
}

// TestBudgetStopTrace: a run its token budget stopped is failed with
// error.type over_budget, the stop an event with the budget, its limit and
// the total, and the usage on the run.
func TestBudgetStopTrace(t *testing.T) {
	needBackend(t)
	t.Parallel()
	message := `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":900,"output_tokens":101}},"session_id":"s-1"}`
	r := wrap(t, backend.otlp, []string{steps("line", initLine, "line", message, "hang")}, "--agent", "claude", "--max-tokens", "1000", "--", "fix it")
	if r.code != 86 {
		t.Fatalf("exit %d, want 86; stderr %s", r.code, r.stderr)
	}
	spans := backend.trace(t, traceOf(t, r), 2)
	root, attempt := one(t, spans, "invoke_agent claude"), one(t, spans, "cursor_wrap.attempt")
	if root.tag("error.type") != "over_budget" || root.tag("gen_ai.usage.input_tokens") != "900" || root.tag("gen_ai.usage.output_tokens") != "101" ||
		root.tag("gen_ai.provider.name") != "anthropic" {
		t.Errorf("the run: %+v", root.Tags)
	}
	stop := attempt.event("cursor_wrap.budget_stop")
	if stop["cursor_wrap.budget"] != "max_tokens" || stop["cursor_wrap.budget.limit"] != "1000" || stop["cursor_wrap.budget.total"] != "1001" {
		t.Errorf("the budget stop: %v (events %v)", stop, attempt.events())
	}
}

// TestContentCaptured: with the content switch on, the tool call's command
// is sent, and a secret in it is not.
func TestContentCaptured(t *testing.T) {
	needBackend(t)
	t.Parallel()
	const secret = "s3cr3t-deploy-token-value"
	r := wrap(t, backend.otlp, []string{"DEPLOY_TOKEN=" + secret, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true",
		steps("line", initLine, "line", toolStarted("c1", "curl -H 'Authorization: Bearer abc.DEF-123' -d token="+secret+" https://deploy", 60000),
			"line", toolDone("c1"), "line", resultLine)}, "--", "deploy it")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
	}
	spans := backend.trace(t, traceOf(t, r), 3)
	tool := one(t, spans, "execute_tool shellToolCall")
	args := tool.tag("gen_ai.tool.call.arguments")
	if !strings.Contains(args, "curl -H 'Authorization: Bearer [REDACTED]' -d token=[REDACTED] https://deploy") {
		t.Errorf("the command sent: %q", args)
	}
	b, _ := json.Marshal(spans)
	if strings.Contains(string(b), secret) || strings.Contains(string(b), "abc.DEF-123") {
		t.Errorf("a secret reached the backend: %s", b)
	}
	if root := one(t, spans, "invoke_agent cursor"); !strings.Contains(root.tag("gen_ai.input.messages"), "deploy it") {
		t.Errorf("the prompt was not sent with the switch on: %+v", root.Tags)
	}
}
