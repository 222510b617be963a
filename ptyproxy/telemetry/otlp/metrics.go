package otlp

import (
	"context"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// Meters are the run's instruments: the conventions' two generative-AI
// client metrics, and the wrapper's own counts of runs, hangs, restarts,
// tool calls and cost. A nil *Meters records nothing.
type Meters struct {
	duration genaiconv.ClientOperationDuration
	tokens   genaiconv.ClientTokenUsage
	runs     metric.Int64Counter
	hangs    metric.Int64Counter
	restarts metric.Int64Counter
	tools    metric.Float64Histogram
	cost     metric.Float64Counter
}

// NewMeters makes the instruments on a meter.
func NewMeters(m metric.Meter) (*Meters, error) {
	var ms Meters
	var errs [7]error
	ms.duration, errs[0] = genaiconv.NewClientOperationDuration(m)
	ms.tokens, errs[1] = genaiconv.NewClientTokenUsage(m)
	ms.runs, errs[2] = m.Int64Counter("cursor_wrap.runs", metric.WithUnit("{run}"),
		metric.WithDescription("Runs of an agent under cursor-wrap, by how they ended."))
	ms.hangs, errs[3] = m.Int64Counter("cursor_wrap.hangs", metric.WithUnit("{hang}"),
		metric.WithDescription("Attempts the watchdog stopped, by kind and by the tool open at the time."))
	ms.restarts, errs[4] = m.Int64Counter("cursor_wrap.restarts", metric.WithUnit("{restart}"),
		metric.WithDescription("Attempts run again after a hang or an agent error."))
	ms.tools, errs[5] = m.Float64Histogram("cursor_wrap.tool.duration", metric.WithUnit("s"),
		metric.WithDescription("How long the agent's tool calls ran, by tool and outcome."),
		metric.WithExplicitBucketBoundaries(0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600))
	ms.cost, errs[6] = m.Float64Counter("cursor_wrap.cost", metric.WithUnit("USD"),
		metric.WithDescription("What the agents stated they spent, in US dollars."))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return &ms, nil
}

func (m *Meters) toolCall(agent, tool, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.tools.Record(context.Background(), d.Seconds(), metric.WithAttributes(
		semconv.GenAIAgentName(agent), semconv.GenAIToolName(tool), attribute.String("cursor_wrap.tool.outcome", outcome)))
}

// run records a run that ended, failed with errType ("" for a success).
func (m *Meters) run(r *run, errType string) {
	if m == nil {
		return
	}
	ctx := context.Background()
	op, prov := genaiconv.OperationNameInvokeAgent, genaiconv.ProviderNameAttr(provider(r.agent))
	var common []attribute.KeyValue
	if r.model != "" {
		common = append(common, semconv.GenAIRequestModel(r.model))
	}
	withErr := slices.Clip(common)
	if errType != "" {
		withErr = append(withErr, semconv.ErrorTypeKey.String(errType))
	}
	m.duration.Record(ctx, r.last.Sub(r.start).Seconds(), op, prov, withErr...)
	if r.hasUsage {
		m.tokens.Record(ctx, r.usage.Input, op, prov, genaiconv.TokenTypeInput, common...)
		m.tokens.Record(ctx, r.usage.Output, op, prov, genaiconv.TokenTypeOutput, common...)
		if r.usage.HasCost {
			m.cost.Add(ctx, r.usage.CostUSD, metric.WithAttributes(append(common, semconv.GenAIAgentName(r.agent))...))
		}
	}
	cause, status := "unfinished", 0
	switch {
	case r.exit != nil:
		cause, status = r.exit.Cause, r.exit.Status
	case r.failed != nil:
		cause, status = "start_failed", r.failed.Status
	}
	m.runs.Add(ctx, 1, metric.WithAttributes(semconv.GenAIAgentName(r.agent),
		attribute.String("cursor_wrap.exit.cause", cause), attribute.Int("cursor_wrap.exit.status", status)))
	for _, h := range r.hangs {
		attrs := []attribute.KeyValue{semconv.GenAIAgentName(r.agent), attribute.String("cursor_wrap.hang.kind", h.kind)}
		if h.tool != "" {
			attrs = append(attrs, semconv.GenAIToolName(h.tool))
		}
		m.hangs.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
	if r.attempts > 1 {
		m.restarts.Add(ctx, int64(r.attempts-1), metric.WithAttributes(semconv.GenAIAgentName(r.agent)))
	}
}
