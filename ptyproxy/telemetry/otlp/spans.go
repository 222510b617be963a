package otlp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

var noTracer = noop.NewTracerProvider().Tracer("")

// parseTraceParent reads a traceparent as the SDK's propagator does.
func parseTraceParent(s string) (trace.SpanContext, bool) {
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": s})
	sc := trace.SpanContextFromContext(ctx)
	return sc, sc.IsValid()
}

// output reads one line of the agent's output with its profile: the tool
// calls it opens and closes, its session and model, its answer.
func (r *run) output(h sessionlog.Header, e *sessionlog.EventLine) {
	a := r.cur
	if a.parse == nil {
		return
	}
	at := h.Time
	if e.RecvTS != 0 {
		at = time.UnixMilli(e.RecvTS)
	}
	raw := e.Text()
	ev := a.parse(stream.Line{Text: raw, Len: int64(len(raw)), Newline: !e.Partial})
	if ev.SessionID != "" && ev.SessionID != r.session {
		r.session = ev.SessionID
		r.root.SetAttributes(semconv.GenAIConversationID(r.o.Redact(r.session)))
		a.span.SetAttributes(semconv.GenAIConversationID(r.o.Redact(r.session)))
	}
	if ev.Type == "system" && ev.Subtype == "init" {
		var init struct{ Model string }
		if json.Unmarshal(raw, &init) == nil && init.Model != "" {
			r.response = init.Model
			a.span.SetAttributes(semconv.GenAIResponseModel(init.Model))
		}
	}
	if r.o.Capture {
		a.reply.Add(ev)
	}
	for _, c := range ev.Started {
		if _, open := a.calls[c.ID]; open {
			continue
		}
		attrs := []attribute.KeyValue{
			semconv.GenAIOperationNameExecuteTool,
			semconv.GenAIToolName(c.Kind),
			semconv.GenAIToolCallID(r.o.Redact(c.ID)),
		}
		if c.Timeout > 0 {
			attrs = append(attrs, attribute.Int64("cursor_wrap.tool.declared_timeout_ms", c.Timeout.Milliseconds()))
		}
		if r.o.Capture && c.Command != "" {
			attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(r.o.Redact(c.Command)))
		}
		_, span := r.tracer().Start(a.ctx, "execute_tool "+c.Kind, trace.WithTimestamp(at), trace.WithAttributes(attrs...))
		a.calls[c.ID] = &call{span: span, kind: c.Kind, start: at, declared: c.Timeout}
	}
	for _, id := range ev.Ended {
		if c, open := a.calls[id]; open {
			r.endCall(c, at, "completed", "")
			delete(a.calls, id)
		}
	}
}

// endCall ends a tool call's span, and records its duration.
func (r *run) endCall(c *call, at time.Time, outcome, errType string) {
	c.span.SetAttributes(attribute.String("cursor_wrap.tool.outcome", outcome))
	if errType != "" {
		setError(c.span, errType)
	}
	c.span.End(trace.WithTimestamp(at))
	r.o.Meters.toolCall(r.agent, c.kind, outcome, at.Sub(c.start))
}

// hang records the watchdog's verdict on the attempt: what it was, which
// calls were open and past which deadline, a budget passed.
func (r *run) hang(a *attempt, at trace.EventOption, rec *sessionlog.HangDetected) {
	rs := rec.Reason
	a.hung = rs.Kind
	h := hang{kind: rs.Kind}
	if len(rs.OpenCalls) > 0 {
		h.tool = rs.OpenCalls[0].Kind
	}
	r.hangs = append(r.hangs, h)
	attrs := []attribute.KeyValue{
		attribute.String("cursor_wrap.hang.kind", rs.Kind),
		attribute.Int64("cursor_wrap.silence_ms", rs.Silence.Milliseconds()),
		attribute.Int64("cursor_wrap.elapsed_ms", rs.Elapsed.Milliseconds()),
		attribute.Int("cursor_wrap.open_call_count", rs.OpenCount),
	}
	if rs.Threshold > 0 {
		attrs = append(attrs, attribute.Int64("cursor_wrap.threshold_ms", rs.Threshold.Milliseconds()))
	}
	var tools, ids []string
	for _, c := range rs.OpenCalls {
		tools, ids = append(tools, c.Kind), append(ids, r.o.Redact(c.ID))
		if open := a.calls[c.ID]; open != nil && c.Budget > 0 {
			open.span.SetAttributes(attribute.Int64("cursor_wrap.tool.budget_ms", c.Budget.Milliseconds()))
		}
	}
	if len(tools) > 0 {
		attrs = append(attrs, attribute.StringSlice("cursor_wrap.open_calls.tool_names", tools), attribute.StringSlice("cursor_wrap.open_calls.ids", ids))
	}
	if r.o.Capture {
		attrs = append(attrs, attribute.String("cursor_wrap.reason", r.o.Redact(rs.Describe())))
	}
	a.event("cursor_wrap.hang_detected", at, attrs...)
	if rs.Kind == "budget" {
		a.event("cursor_wrap.budget_stop", at, attribute.String("cursor_wrap.budget", rs.Budget),
			attribute.Float64("cursor_wrap.budget.limit", rs.Limit), attribute.Float64("cursor_wrap.budget.total", rs.Total))
	}
	a.span.SetAttributes(attribute.String("cursor_wrap.hang.kind", rs.Kind))
}

// endAttempt ends the attempt's span with its exit record (nil: it has
// none, its wrapper was killed), and the calls still open with it.
func (r *run) endAttempt(at time.Time, exit *sessionlog.Exit) {
	a := r.cur
	a.ended = true
	errType := "unfinished"
	if exit != nil {
		errType = r.errorType(exit)
		a.span.SetAttributes(
			attribute.String("cursor_wrap.exit.cause", exit.Cause),
			attribute.Int("cursor_wrap.exit.status", exit.Status),
			attribute.Int("cursor_wrap.lines", exit.Lines),
			attribute.Int("cursor_wrap.tool_calls", exit.ToolCalls),
			attribute.Int64("cursor_wrap.longest_silence_ms", exit.LongestSilenceMS),
		)
	}
	outcome := "open"
	if a.hung != "" {
		outcome = "hung"
	}
	for id, c := range a.calls {
		r.endCall(c, at, outcome, errType)
		delete(a.calls, id)
	}
	usage := a.usage
	if exit != nil && exit.Usage != nil {
		usage = exit.Usage
	}
	if usage != nil {
		u := usage.Usage()
		setUsage(a.span, u)
		r.usage, r.hasUsage = r.usage.Plus(u), true
	}
	if r.o.Capture {
		if answer := a.reply.String(); answer != "" {
			a.span.SetAttributes(semconv.GenAIOutputMessagesKey.String(messages("assistant", r.o.Redact(answer))))
		}
	}
	if errType != "" {
		setError(a.span, errType)
	}
	a.span.End(trace.WithTimestamp(at))
}

// errorType is how an attempt that ended with exit failed, "" for a
// success: what the wrapper did (hung, over_budget, interrupted...), else
// what the agent said stopped it (rate_limit, auth...), else its status.
func (r *run) errorType(exit *sessionlog.Exit) string {
	switch {
	case exit.Status == 0:
		return ""
	case exit.Cause != "exited":
		return exit.Cause
	case r.agentErr != "":
		return r.agentErr
	}
	return fmt.Sprintf("exit_status_%d", exit.Status)
}

func setUsage(s trace.Span, u stream.Usage) {
	s.SetAttributes(
		semconv.GenAIUsageInputTokens(int(u.Input)),
		semconv.GenAIUsageOutputTokens(int(u.Output)),
		semconv.GenAIUsageCacheReadInputTokens(int(u.CacheRead)),
		semconv.GenAIUsageCacheCreationInputTokens(int(u.CacheWrite)),
	)
	if u.HasCost {
		s.SetAttributes(attribute.Float64("cursor_wrap.usage.cost_usd", u.CostUSD))
	}
}

// end ends the run at its last record: its span says how it ended (the
// last exit record), and its metrics are recorded.
func (r *run) end() {
	if r.root == nil {
		return
	}
	if r.cur != nil && !r.cur.ended {
		r.endAttempt(r.last, nil)
	}
	attrs := []attribute.KeyValue{
		attribute.Int("cursor_wrap.attempts", r.attempts),
		attribute.Int("cursor_wrap.restarts", r.attempts-1),
	}
	errType := "unfinished"
	switch {
	case r.exit != nil:
		errType = r.errorType(r.exit)
		attrs = append(attrs, attribute.String("cursor_wrap.exit.cause", r.exit.Cause), attribute.Int("cursor_wrap.exit.status", r.exit.Status))
	case r.failed != nil:
		errType = "start_failed"
		attrs = append(attrs, attribute.String("cursor_wrap.exit.cause", "start_failed"), attribute.Int("cursor_wrap.exit.status", r.failed.Status))
	}
	if n := len(r.hangs); n > 0 {
		attrs = append(attrs, attribute.String("cursor_wrap.hang.kind", r.hangs[n-1].kind))
		if tool := r.hangs[n-1].tool; tool != "" {
			attrs = append(attrs, attribute.String("cursor_wrap.hang.tool_name", tool))
		}
	}
	if r.response != "" {
		attrs = append(attrs, semconv.GenAIResponseModel(r.response))
	}
	if r.dropped > 0 {
		attrs = append(attrs, attribute.Int("cursor_wrap.records_dropped", r.dropped))
	}
	r.root.SetAttributes(attrs...)
	if r.hasUsage {
		setUsage(r.root, r.usage)
	}
	if errType != "" {
		setError(r.root, errType)
	}
	r.root.End(trace.WithTimestamp(r.last))
	r.o.Meters.run(r, errType)
}
