package telemetry

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"cursor-wrap/ptyproxy/sessionlog"
)

// A SpanContext is a place in a trace as W3C Trace Context writes it in a
// traceparent: version 00, the trace, the span, the flags.
type SpanContext struct {
	TraceID [16]byte
	SpanID  [8]byte
	Flags   byte // bit 0: sampled
}

// ParseTraceParent reads a traceparent ("00-<32 hex>-<16 hex>-<2 hex>"); it
// refuses a malformed one and the all-zero ids the spec calls invalid. A
// later version is read for its first four fields, as the spec asks.
func ParseTraceParent(s string) (SpanContext, bool) {
	var sc SpanContext
	s = strings.TrimSpace(s)
	if len(s) < 55 || (len(s) > 55 && (s[:2] == "00" || s[55] != '-')) {
		return sc, false
	}
	if s[2] != '-' || s[35] != '-' || s[52] != '-' || s[:2] == "ff" {
		return sc, false
	}
	var version, flags [1]byte
	ok := decode(version[:], s[0:2]) && decode(sc.TraceID[:], s[3:35]) && decode(sc.SpanID[:], s[36:52]) && decode(flags[:], s[53:55])
	if !ok || sc.TraceID == [16]byte{} || sc.SpanID == [8]byte{} {
		return SpanContext{}, false
	}
	sc.Flags = flags[0]
	return sc, true
}

// decode reads lower-case hex only, as the spec writes it.
func decode(dst []byte, s string) bool {
	if strings.ToLower(s) != s {
		return false
	}
	_, err := hex.Decode(dst, []byte(s))
	return err == nil
}

// String writes the traceparent.
func (sc SpanContext) String() string {
	return "00-" + hex.EncodeToString(sc.TraceID[:]) + "-" + hex.EncodeToString(sc.SpanID[:]) + "-" + hex.EncodeToString([]byte{sc.Flags})
}

// Sampled reports whether the caller records this trace.
func (sc SpanContext) Sampled() bool { return sc.Flags&1 == 1 }

// A Trace is a run's place in a trace: its own span, under the caller's
// when there is one, in the caller's trace or a new one.
type Trace struct {
	run    SpanContext
	parent string // the caller's span, hex; "" for none
}

// NewTrace places a run under the caller's traceparent, or at the root of
// a trace of its own when there is none (or it does not read). A caller
// that does not sample its trace is followed: its flags go on.
func NewTrace(traceparent string) Trace {
	var t Trace
	if p, ok := ParseTraceParent(traceparent); ok {
		t.run.TraceID, t.run.Flags = p.TraceID, p.Flags
		t.parent = hex.EncodeToString(p.SpanID[:])
	} else {
		_, _ = rand.Read(t.run.TraceID[:]) // Never fails (crypto/rand).
		t.run.Flags = 1
	}
	t.run.SpanID = newSpanID()
	return t
}

// Sampled reports whether the run's spans are recorded.
func (t Trace) Sampled() bool { return t.run.Sampled() }

// Attempt gives an attempt a span of its own under the run's: the trace
// record of its command, whose TraceParent the agent receives.
func (t Trace) Attempt() *sessionlog.Trace {
	a := t.run
	a.SpanID = newSpanID()
	return &sessionlog.Trace{TraceParent: a.String(), RunSpan: hex.EncodeToString(t.run.SpanID[:]), Parent: t.parent}
}

func newSpanID() [8]byte {
	var id [8]byte
	for id == [8]byte{} {
		_, _ = rand.Read(id[:])
	}
	return id
}
