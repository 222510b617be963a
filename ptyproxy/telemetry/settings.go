// Package telemetry sends each run to an OpenTelemetry collector without
// weighing on the wrapper: it decides from the configuration and the
// standard OTEL_* variables whether traces and metrics are exported, gives
// the run and each attempt a place in a trace (the context the agent
// receives in TRACEPARENT), and hands the run's session-log records, as
// the log gets them, to the exporter process, cursor-wrap-otel, which
// builds the spans and metrics from them (package telemetry/otlp). The
// OpenTelemetry SDK is linked into that process alone, so a run without
// export, and every start, pays nothing for it.
package telemetry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"cursor-wrap/ptyproxy/config"
)

// Settings say what a run exports, and how the exporter is started.
type Settings struct {
	Traces, Metrics bool
	// Capture sends the prompt, tool commands and the answer, masked.
	Capture bool
	Flush   time.Duration // the longest wait at the end for the export
	// Notes say why a signal asked for is not exported: a protocol or an
	// exporter that is not linked. The wrapper says each once.
	Notes []string
	env   []string // the exporter process's
}

// On reports whether anything is exported.
func (s Settings) On() bool { return s.Traces || s.Metrics }

// Resolve reads what to export from the configuration (whose otel_ keys
// already took OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS and the content
// switch from environ) and the standard variables only the exporter
// reads: a signal is exported when an endpoint is set for it, its
// OTEL_<SIGNAL>_EXPORTER is not none, and its protocol is http/protobuf;
// OTEL_SDK_DISABLED=true turns both off, as in every SDK.
func Resolve(cfg config.Config, environ []string) Settings {
	get := func(name string) string {
		for _, kv := range slices.Backward(environ) {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	s := Settings{Capture: cfg.OTel.CaptureContent, Flush: cfg.OTel.FlushTimeout}
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") {
		return s
	}
	signal := func(name string) bool {
		upper := strings.ToUpper(name)
		if cfg.OTel.Endpoint == "" && get("OTEL_EXPORTER_OTLP_"+upper+"_ENDPOINT") == "" {
			return false
		}
		switch exporter := get("OTEL_" + upper + "_EXPORTER"); exporter {
		case "", "otlp":
		case "none":
			return false
		default:
			s.Notes = append(s.Notes, fmt.Sprintf("OTEL_%s_EXPORTER=%s is not supported: only otlp is linked; %s are not exported", upper, exporter, name))
			return false
		}
		variable, protocol := "OTEL_EXPORTER_OTLP_"+upper+"_PROTOCOL", ""
		if protocol = get(variable); protocol == "" {
			variable, protocol = "OTEL_EXPORTER_OTLP_PROTOCOL", get("OTEL_EXPORTER_OTLP_PROTOCOL")
		}
		if protocol != "" && protocol != "http/protobuf" {
			s.Notes = append(s.Notes, fmt.Sprintf("%s=%s is not supported: only OTLP over HTTP (http/protobuf) is linked; %s are not exported", variable, protocol, name))
			return false
		}
		return true
	}
	s.Traces, s.Metrics = signal("traces"), signal("metrics")
	// The exporter reads the endpoint and headers where the SDK reads them,
	// with the values the configuration settled on.
	s.env = slices.Clip(environ)
	if cfg.OTel.Endpoint != "" {
		s.env = append(s.env, "OTEL_EXPORTER_OTLP_ENDPOINT="+cfg.OTel.Endpoint)
	}
	if len(cfg.OTel.Headers) > 0 {
		s.env = append(s.env, "OTEL_EXPORTER_OTLP_HEADERS="+strings.Join(cfg.OTel.Headers, ","))
	}
	return s
}
