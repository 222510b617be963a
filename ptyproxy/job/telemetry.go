package job

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/telemetry"
)

// Run runs attempts until one ends without a hang or the restarts are
// used up. The error is for an agent that could not be started
// (StartStatus maps it); everything after is in the Result. When export
// is configured the run's records go to the exporter as the log gets
// them, and Run returns once it has sent them, or at the flush bound.
func (j *Job) Run(ctx context.Context) (Result, error) {
	j.init()
	j.startTelemetry()
	res, err := j.run(ctx)
	res.Telemetry = j.endTelemetry(res.LogPath)
	return res, err
}

// The run's export, when configured: set by startTelemetry.
type export struct {
	exporter *telemetry.Exporter
	trace    *telemetry.Trace // nil when the run's spans are not recorded
	notes    []string         // signals asked for that cannot be sent
}

// startTelemetry starts the run's exporter when the configuration and the
// environment ask for one, and places the run in its trace: under
// TraceParent, the caller's.
func (j *Job) startTelemetry() {
	s := telemetry.Resolve(j.Live.Config(), os.Environ())
	j.export.notes = s.Notes
	if !s.On() {
		return
	}
	if s.Traces {
		t := telemetry.NewTrace(j.TraceParent)
		if t.Sampled() {
			j.export.trace = &t
		} else {
			s.Traces = false // The caller records none of this trace.
		}
	}
	if s.On() {
		j.export.exporter = telemetry.Start(s)
	}
}

// telemetrySinks adds the exporter to where an attempt's records go.
func (j *Job) telemetrySinks(sinks []sessionlog.Sink) []sessionlog.Sink {
	if j.export.exporter == nil {
		return sinks
	}
	return append(sinks, j.export.exporter)
}

// traced gives the attempt of c its span in the run's trace: its command
// record says so, and the agent receives it in TRACEPARENT, in the
// returned environment. Without a trace the agent gets the environment
// as it is, the caller's TRACEPARENT included.
func (j *Job) traced(c *sessionlog.Command) []string {
	if j.export.trace == nil {
		return j.Cmd.Env
	}
	c.Trace = j.export.trace.Attempt()
	env := slices.DeleteFunc(slices.Clone(j.Cmd.Env), func(kv string) bool { return strings.HasPrefix(kv, "TRACEPARENT=") })
	return append(env, "TRACEPARENT="+c.Trace.TraceParent)
}

// toTelemetry hands the exporter a record written to a log directly.
func (j *Job) toTelemetry(rec sessionlog.Record) {
	if j.export.exporter != nil {
		sessionlog.NewRecorder(j.redact, j.export.exporter).Write(rec)
	}
}

// endTelemetry waits for the exporter, at most the flush bound, and
// records in the last attempt's log what was not exported, and why: each
// is returned, for the wrapper to say in one line.
func (j *Job) endTelemetry(logPath string) []string {
	failures := make([]telemetry.Failure, 0, len(j.export.notes))
	for _, n := range j.export.notes {
		failures = append(failures, telemetry.Failure{Signal: "telemetry", Error: n})
	}
	if j.export.exporter != nil {
		failures = append(failures, j.export.exporter.Close()...)
	}
	var words []string
	for _, f := range failures {
		if logPath != "" {
			// A log that cannot take it was reported when it failed.
			_ = sessionlog.Append(logPath, j.redact, sessionlog.TelemetryFailed{Signal: f.Signal, Error: f.Error})
		}
		words = append(words, j.redact.MaskString(fmt.Sprintf("%s not exported: %s", f.Signal, f.Error)).String())
	}
	return words
}
