// Command cursor-wrap-otel exports one run of cursor-wrap to an
// OpenTelemetry collector: the wrapper starts it when export is
// configured and writes the run's session-log records to its stdin; it
// builds the run's spans and metrics from them and sends them over
// OTLP/HTTP, as the standard OTEL_* variables say. It is a binary of its
// own so that the OpenTelemetry SDK does not weigh on every start of the
// wrapper.
package main

import (
	"os"

	"cursor-wrap/ptyproxy/telemetry/otlp"
)

func main() { os.Exit(otlp.Main(os.Args[1:], os.Stdin, os.Stdout)) }
