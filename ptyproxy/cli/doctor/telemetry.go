package doctor

import (
	"os"
	"path/filepath"
	"strings"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/telemetry"
)

// checkTelemetry says whether runs export traces and metrics and where,
// what of it cannot be exported (a protocol that is not linked), and what
// the newest run that failed to export said.
func checkTelemetry(check func(bool, string, string), warn func(string, string), cfg config.Config) {
	s := telemetry.Resolve(cfg, os.Environ())
	for _, n := range s.Notes {
		check(false, "telemetry: "+n, "unset it, or set it to http/protobuf (or the exporter to otlp): cursor-wrap-otel speaks OTLP over HTTP only")
	}
	if !s.On() {
		if len(s.Notes) == 0 {
			check(true, "telemetry: off (no otel_endpoint, no OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_SDK_DISABLED=true)", "")
		}
		return
	}
	var signals []string
	if s.Traces {
		signals = append(signals, "traces")
	}
	if s.Metrics {
		signals = append(signals, "metrics")
	}
	where := cfg.OTel.Endpoint
	if where == "" {
		where = "the OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT variables"
	}
	if path, err := telemetry.Find(); err != nil {
		check(false, "telemetry: "+err.Error(), "")
	} else {
		check(true, "telemetry: "+strings.Join(signals, " and ")+" go to "+where+" through "+path, "")
	}
	if log, failed := lastFailure(cfg.LogDir); failed != nil {
		warn("telemetry: the newest run that failed to export ("+filepath.Base(log)+"): "+failed.Signal+" not exported: "+failed.Error,
			"check that the collector at "+where+" is up and takes OTLP over HTTP; the session log has every failure")
	}
}

// lastFailure finds the newest of the last few runs that could not export,
// in the ends of their logs, where the record is appended.
func lastFailure(dir string) (string, *sessionlog.TelemetryFailed) {
	logs := sessionlog.List(dir)
	for _, log := range logs[:min(len(logs), 10)] {
		if s, err := sessionlog.ReadSummary(log); err == nil && s.TelemetryFailed != nil {
			return log, s.TelemetryFailed
		}
	}
	return "", nil
}
