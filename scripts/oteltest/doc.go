// Package oteltest runs cursor-wrap against real OpenTelemetry backends:
// its tests start Jaeger (built by scripts/jaeger.sh from the Go module
// proxy; Jaeger v2 is an OpenTelemetry Collector distribution, run here
// with a metrics pipeline to its debug exporter beside the traces one),
// run the built wrapper and MCP server with export on, and read back what
// arrived: the spans through Jaeger's query API, the metrics from the
// collector's output. Without Jaeger they skip, saying why; in CI they
// fail.
package oteltest
