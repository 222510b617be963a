// Package otlp builds a run's OpenTelemetry spans and metrics from its
// session-log records, for cursor-wrap-otel: the records the log is
// written from, read with the log's own schema (sessionlog.Decode) and
// the agent's own stream profile, so that a trace says what inspect says.
// A run is one trace: an invoke_agent span, a span per attempt under it,
// an execute_tool span per tool call under its attempt, the wrapper's
// decisions as span events; its metrics are recorded as it ends. Names and
// attributes follow the OpenTelemetry semantic conventions for generative
// AI; what they lack is under cursor_wrap.*.
package otlp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
)

// Options say where a run goes and what of it.
type Options struct {
	Tracer trace.Tracer // nil: no spans
	Meters *Meters      // nil: no metrics
	// Capture sends the prompt, the tool calls' commands and the answer;
	// without it no text the agent or the user wrote leaves.
	Capture bool
	// Redact masks secrets in every text that leaves.
	Redact func(string) string
}

// maxRecord bounds one record read: the log's longest (an event record
// of a 4 MiB + 64 KiB line, escaped) fits.
const maxRecord = 32 << 20

// Read reads a run's records from r until its end, which ends the run:
// its spans are ended (an attempt without an exit record as unfinished:
// its wrapper was killed) and its metrics recorded.
func Read(r io.Reader, o Options) {
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	run := &run{o: o}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long record: read the rest of it, up to the bound.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull && len(long) < maxRecord {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n') // Past the bound: skipped.
			}
		}
		if h, rec, derr := sessionlog.Decode(bytes.TrimSpace(line)); derr == nil && rec != nil {
			run.record(h, rec)
		}
		if err != nil {
			break
		}
	}
	run.end()
}

// A run is the spans and totals of a run read so far.
type run struct {
	o        Options
	root     trace.Span
	rootCtx  context.Context
	start    time.Time
	last     time.Time // the last record's time: the run's end
	agent    string
	model    string // requested
	response string // the model the agent says it runs
	session  string
	prompt   string
	attempts int
	cur      *attempt
	exit     *sessionlog.Exit // the last one: how the run ended
	failed   *sessionlog.StartFailed
	agentErr string // the kind of the last agent error
	usage    stream.Usage
	hasUsage bool
	hangs    []hang // one per attempt that hung
	dropped  int
}

// A hang is an attempt the watchdog stopped: the kind of its verdict and
// the tool that was open the longest, if any.
type hang struct{ kind, tool string }

// An attempt is one attempt's span and what is open in it.
type attempt struct {
	n     int
	span  trace.Span
	ctx   context.Context
	parse func(stream.Line) stream.Event
	calls map[string]*call
	usage *sessionlog.UsageRecord
	reply stream.Reply
	hung  string // the hang kind, if it hung
	ended bool
}

// A call is an open tool call.
type call struct {
	span     trace.Span
	kind     string
	start    time.Time
	declared time.Duration
}

func (r *run) record(h sessionlog.Header, rec sessionlog.Record) {
	if !sessionlog.BesideRun(rec) {
		r.last = h.Time
	}
	at := trace.WithTimestamp(h.Time)
	switch v := rec.(type) {
	case *sessionlog.Command:
		r.command(h.Time, v)
	case *sessionlog.LogDropped:
		r.dropped += v.Records
	}
	a := r.cur
	if a == nil || a.ended {
		if e, ok := rec.(*sessionlog.Exit); ok {
			r.exit = e // A run that ended while it waited to restart.
		}
		return
	}
	switch v := rec.(type) {
	case *sessionlog.Restart:
		words := []attribute.KeyValue{attribute.Int("cursor_wrap.attempt", v.Attempt)}
		if r.o.Capture {
			words = append(words, attribute.String("cursor_wrap.restart.reason", r.o.Redact(v.Why)))
		}
		a.event("cursor_wrap.restart", at, words...)
		r.event("cursor_wrap.restart", at, words...)
	case *sessionlog.Start:
		a.span.SetAttributes(attribute.Int("process.pid", v.Pid))
	case *sessionlog.StartFailed:
		r.failed = v
		a.event("cursor_wrap.start_failed", at, attribute.String("error.message", r.o.Redact(v.Error)))
	case *sessionlog.EventLine:
		r.output(h, v)
	case *sessionlog.Warning:
		words := []attribute.KeyValue{attribute.String("cursor_wrap.call_id", v.CallID), attribute.Int64("cursor_wrap.hang_in_ms", v.InMS)}
		if v.Reason != nil {
			words = append(words, attribute.String("cursor_wrap.reason.kind", v.Reason.Kind))
		}
		if r.o.Capture {
			words = append(words, attribute.String("cursor_wrap.message", r.o.Redact(v.Message)))
		}
		a.event("cursor_wrap.warning", at, words...)
	case *sessionlog.VerdictChange:
		a.event("cursor_wrap.verdict", at, attribute.String("cursor_wrap.verdict.from", v.From), attribute.String("cursor_wrap.verdict.to", v.To),
			attribute.String("cursor_wrap.reason.kind", v.Reason.Kind), attribute.Int64("cursor_wrap.silence_ms", v.Reason.Silence.Milliseconds()))
	case *sessionlog.Evidence:
		a.event("cursor_wrap.evidence", at, attribute.String("cursor_wrap.connection", v.Connection),
			attribute.Int64("cursor_wrap.received_ms_ago", v.ReceivedMS), attribute.Int64("cursor_wrap.silence_ms", v.SilenceMS))
	case *sessionlog.HangDetected:
		r.hang(a, at, v)
	case *sessionlog.ExitOverdue:
		a.event("cursor_wrap.exit_overdue", at, attribute.Int64("cursor_wrap.silence_ms", v.Reason.Silence.Milliseconds()))
	case *sessionlog.Kill:
		a.event("cursor_wrap.kill", at, attribute.String("cursor_wrap.signal", v.Signal), attribute.IntSlice("cursor_wrap.pids", v.Pids))
	case *sessionlog.AgentExited:
		a.span.SetAttributes(attribute.Int("cursor_wrap.agent.exit_code", v.Code))
		if v.Signal != "" {
			a.span.SetAttributes(attribute.String("cursor_wrap.agent.signal", v.Signal))
		}
	case *sessionlog.Leftovers:
		a.event("cursor_wrap.leftovers", at, attribute.Int("cursor_wrap.processes", len(v.Processes)))
	case *sessionlog.DownstreamClosed:
		a.event("cursor_wrap.downstream_closed", at)
	case *sessionlog.ConfigReloaded:
		keys := make([]string, len(v.Changed))
		for i, c := range v.Changed {
			keys[i] = c.Key
		}
		a.event("cursor_wrap.config_reloaded", at, attribute.StringSlice("cursor_wrap.keys", keys))
	case *sessionlog.OnHang:
		a.event("cursor_wrap.on_hang", at)
	case *sessionlog.OnHangFailed:
		a.event("cursor_wrap.on_hang_failed", at)
	case *sessionlog.AgentErrorRecord:
		r.agentErr = v.Kind
		words := []attribute.KeyValue{attribute.String("cursor_wrap.agent_error.kind", v.Kind), attribute.Bool("cursor_wrap.agent_error.restart", v.Restart)}
		if r.o.Capture {
			words = append(words, attribute.String("cursor_wrap.message", r.o.Redact(v.Message)))
		}
		a.event("cursor_wrap.agent_error", at, words...)
	case *sessionlog.UsageRecord:
		a.usage = v
	case *sessionlog.Exit:
		r.exit = v
		r.endAttempt(h.Time, v)
	}
}

// command starts the run at its first attempt, and each attempt.
func (r *run) command(at time.Time, c *sessionlog.Command) {
	profile, _ := stream.ProfileNamed(c.Agent)
	if r.root == nil {
		r.start, r.agent = at, c.Agent
		if profile != nil {
			r.model, r.prompt = profile.Model(c.Argv), profile.Prompt(c.Argv)
		}
		r.startRoot(at, c)
	}
	if r.cur != nil && !r.cur.ended {
		r.endAttempt(at, nil)
	}
	r.attempts++
	a := &attempt{n: c.Attempt, calls: map[string]*call{}}
	if profile != nil && c.Watch == "events" {
		a.parse = profile.Parse
	}
	ctx := r.rootCtx
	if t := c.Trace; t != nil {
		if sc, ok := parseTraceParent(t.TraceParent); ok {
			ctx = withIDs(ctx, sc.TraceID(), sc.SpanID())
		}
	}
	a.ctx, a.span = r.tracer().Start(ctx, "cursor_wrap.attempt", trace.WithTimestamp(at), trace.WithAttributes(
		attribute.Int("cursor_wrap.attempt", c.Attempt),
		semconv.GenAIAgentName(c.Agent),
		attribute.String("cursor_wrap.watch", c.Watch),
	))
	if profile != nil && profile.Model(c.Argv) != "" {
		a.span.SetAttributes(semconv.GenAIRequestModel(profile.Model(c.Argv)))
	}
	r.cur = a
}

// startRoot starts the run's span: under the caller's, with the ids the
// wrapper chose.
func (r *run) startRoot(at time.Time, c *sessionlog.Command) {
	ctx := context.Background()
	if t := c.Trace; t != nil {
		sc, _ := parseTraceParent(t.TraceParent)
		if parent := spanID(t.Parent); parent.IsValid() {
			ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: sc.TraceID(), SpanID: parent, TraceFlags: sc.TraceFlags(), Remote: true,
			}))
		}
		ctx = withIDs(ctx, sc.TraceID(), spanID(t.RunSpan))
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentName(c.Agent),
		semconv.GenAIProviderNameKey.String(provider(c.Agent)),
		attribute.String("cursor_wrap.run.id", c.Run),
	}
	if r.model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(r.model))
	}
	if c.Via != "" {
		attrs = append(attrs, attribute.String("cursor_wrap.via", c.Via))
	}
	if r.o.Capture && r.prompt != "" {
		attrs = append(attrs, semconv.GenAIInputMessagesKey.String(messages("user", r.o.Redact(r.prompt))))
	}
	r.rootCtx, r.root = r.tracer().Start(ctx, "invoke_agent "+c.Agent, trace.WithTimestamp(at),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// provider names who serves each agent's model, as the conventions name
// providers; an agent whose provider varies is named itself.
func provider(agent string) string {
	switch agent {
	case "claude":
		return "anthropic"
	case "codex":
		return "openai"
	case "gemini":
		return "gcp.gemini"
	}
	return agent
}

// messages writes text as the conventions' message list: one message of
// role with one text part.
func messages(role, text string) string {
	b, _ := json.Marshal([]map[string]any{{"role": role, "parts": []map[string]string{{"type": "text", "content": text}}}})
	return string(b)
}

func (r *run) tracer() trace.Tracer {
	if r.o.Tracer == nil {
		return noTracer
	}
	return r.o.Tracer
}

func (r *run) event(name string, at trace.EventOption, attrs ...attribute.KeyValue) {
	r.root.AddEvent(name, at, trace.WithAttributes(attrs...))
}

func (a *attempt) event(name string, at trace.EventOption, attrs ...attribute.KeyValue) {
	a.span.AddEvent(name, at, trace.WithAttributes(attrs...))
}

// setError marks a span failed, with the conventions' error.type.
func setError(s trace.Span, errType string) {
	s.SetStatus(codes.Error, errType)
	s.SetAttributes(semconv.ErrorTypeKey.String(errType))
}
