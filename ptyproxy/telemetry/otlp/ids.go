package otlp

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"

	"go.opentelemetry.io/otel/trace"
)

// The run's and the attempts' span ids are the wrapper's: it chose them
// before the agent started (the agent was given the attempt's), and wrote
// them in each attempt's command record. ids hands them to the SDK, which
// asks its IDGenerator with the context of the span being started; a span
// started without one (a tool call's) gets random ids.
type ids struct{}

type presetKey struct{}

type preset struct {
	trace trace.TraceID
	span  trace.SpanID
}

// withIDs makes the span started with ctx take these ids.
func withIDs(ctx context.Context, traceID trace.TraceID, spanID trace.SpanID) context.Context {
	return context.WithValue(ctx, presetKey{}, preset{traceID, spanID})
}

func (ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if p, ok := ctx.Value(presetKey{}).(preset); ok && p.trace.IsValid() && p.span.IsValid() {
		return p.trace, p.span
	}
	return randomTrace(), randomSpan()
}

func (ids) NewSpanID(ctx context.Context, traceID trace.TraceID) trace.SpanID {
	if p, ok := ctx.Value(presetKey{}).(preset); ok && p.trace == traceID && p.span.IsValid() {
		return p.span
	}
	return randomSpan()
}

func randomTrace() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		_, _ = crand.Read(id[:]) // Never fails (crypto/rand).
	}
	return id
}

func randomSpan() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		_, _ = crand.Read(id[:])
	}
	return id
}

// spanID reads a span id the wrapper wrote in hex; invalid when it does
// not read.
func spanID(s string) trace.SpanID {
	var id trace.SpanID
	if b, err := hex.DecodeString(s); err == nil && len(b) == len(id) {
		copy(id[:], b)
	}
	return id
}
