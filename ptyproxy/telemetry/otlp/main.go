package otlp

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"cursor-wrap/ptyproxy/redact"
)

// scope names the instrumentation: the wrapper.
const scope = "cursor-wrap"

// Main is cursor-wrap-otel: it reads a run's records from in until its
// end, exports them as the standard OTEL_* variables say (OTLP over HTTP),
// and ends within --flush. It reports each signal the collector did not
// take once, as a JSON line on out ({"signal", "error"}): the wrapper
// writes it to the session log. It prints nothing else.
func Main(args []string, in io.Reader, out io.Writer) int {
	fs := flag.NewFlagSet("cursor-wrap-otel", flag.ContinueOnError)
	flush := fs.Duration("flush", 2*time.Second, "the longest wait, once the records end, for the export")
	traces := fs.Bool("traces", true, "export traces")
	metrics := fs.Bool("metrics", true, "export metrics")
	capture := fs.Bool("capture-content", false, "send the prompt, tool commands and the answer")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	secrets := redact.New(nil, os.Environ())
	rep := &reporter{out: out, redact: func(s string) string { return secrets.MaskString(s).String() }}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { rep.report(signalOf(err), err) }))
	res, err := resource.New(context.Background(),
		resource.WithAttributes(semconv.ServiceName(scope)),
		resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithHost())
	if err != nil && res == nil {
		res = resource.Default()
	}
	o := Options{Capture: *capture, Redact: rep.redact}
	var tp *sdktrace.TracerProvider
	var mp *sdkmetric.MeterProvider
	retry := otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 250 * time.Millisecond, MaxInterval: time.Second, MaxElapsedTime: *flush}
	if *traces {
		exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithRetry(retry))
		if err != nil {
			rep.report("traces", err)
		} else {
			tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithIDGenerator(ids{}), sdktrace.WithResource(res))
			o.Tracer = tp.Tracer(scope)
		}
	}
	if *metrics {
		opts := []otlpmetrichttp.Option{otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig(retry))}
		if os.Getenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE") == "" {
			// Each process sees one run: delta is what it has to say.
			opts = append(opts, otlpmetrichttp.WithTemporalitySelector(func(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.DeltaTemporality }))
		}
		exp, err := otlpmetrichttp.New(context.Background(), opts...)
		if err != nil {
			rep.report("metrics", err)
		} else {
			// Exported once, at the end: the process lives for one run.
			mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
				sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(24*time.Hour))))
			if o.Meters, err = NewMeters(mp.Meter(scope)); err != nil {
				rep.report("metrics", err)
			}
		}
	}
	Read(in, o)
	// The wrapper kills this process at the bound: stop a little before.
	ctx, cancel := context.WithTimeout(context.Background(), *flush*9/10)
	defer cancel()
	var wg sync.WaitGroup
	if tp != nil {
		wg.Go(func() { rep.report("traces", tp.Shutdown(ctx)) })
	}
	if mp != nil {
		wg.Go(func() { rep.report("metrics", mp.Shutdown(ctx)) })
	}
	wg.Wait()
	return 0
}

// signalOf tells which signal an error the SDK handed its global handler
// is about.
func signalOf(err error) string {
	if strings.Contains(strings.ToLower(err.Error()), "metric") {
		return "metrics"
	}
	return "traces"
}

// A reporter writes each signal's first failure, masked, as a JSON line.
type reporter struct {
	out    io.Writer
	redact func(string) string
	mu     sync.Mutex
	seen   map[string]bool
}

func (r *reporter) report(signal string, err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[signal] {
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[signal] = true
	text := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		text = "the collector did not answer in time: " + text
	}
	b, _ := json.Marshal(map[string]string{"signal": signal, "error": r.redact(text)})
	fmt.Fprintf(r.out, "%s\n", b)
}
