package sessionlog

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// viaSlog writes the record the way slog's JSON handler writes any other.
func viaSlog(e Event) []byte {
	var b bytes.Buffer
	h := slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})
	r := slog.NewRecord(e.Time, slog.LevelDebug, "event", 0)
	r.AddAttrs(slog.Int64("recv_ts", e.RecvTS))
	if e.AgentTS != 0 {
		r.AddAttrs(slog.Int64("agent_ts", e.AgentTS))
	}
	for _, f := range [][2]string{{"type", e.Type}, {"subtype", e.Subtype}, {"call_id", e.CallID}} {
		if f[1] != "" {
			r.AddAttrs(slog.String(f[0], f[1]))
		}
	}
	r.AddAttrs(slog.String("raw", string(e.Raw)))
	if e.ParseError {
		r.AddAttrs(slog.Bool("parse_error", true))
	}
	if e.Truncated {
		r.AddAttrs(slog.Bool("truncated", true), slog.Int64("len", e.Len))
	}
	if e.Partial {
		r.AddAttrs(slog.Bool("partial", true))
	}
	h.Handle(context.Background(), r)
	return b.Bytes()
}

var eventT = time.Date(2026, 11, 25, 22, 44, 27, 136440213, time.UTC)

// TestAppendEventIsSlog checks the encoder writes, byte for byte, what
// slog's JSON handler writes for the same record.
func TestAppendEventIsSlog(t *testing.T) {
	t.Parallel()
	for _, e := range []Event{
		{Time: eventT, RecvTS: 1795646667136, Raw: []byte(`{"type":"thinking","subtype":"delta","text":"a \"quoted\" <b> & \\ back"}`), Type: "thinking", Subtype: "delta", AgentTS: 42},
		{Time: eventT.Add(-time.Millisecond * 136), RecvTS: 1, Raw: []byte("T: plain\ttext\r with \x1b[32mcolour\x7f and \x00 nul"), ParseError: true},
		{Time: eventT, RecvTS: 1, Raw: []byte("ünïcödé ✓ 😀 \u2028 \u2029 line"), CallID: "call_1\nfc_1", Type: "tool_call", Subtype: "started"},
		{Time: eventT, RecvTS: 1, Raw: []byte(strings.Repeat("x", 1000)), Truncated: true, Len: 5 << 20, Partial: true},
		{Time: eventT, RecvTS: 1, Raw: []byte("")},
	} {
		got, want := AppendEvent(nil, e), viaSlog(e)
		if !bytes.Equal(got, want) {
			t.Errorf("AppendEvent\n got %s\nwant %s", got, want)
		}
	}
}

func TestAppendEventBase64(t *testing.T) {
	t.Parallel()
	raw := []byte("caf\xe9 \xff")
	var rec struct {
		Raw    *string `json:"raw"`
		RawB64 []byte  `json:"raw_base64"`
	}
	if err := json.Unmarshal(AppendEvent(nil, Event{Time: eventT, Raw: raw}), &rec); err != nil || rec.Raw != nil || !bytes.Equal(rec.RawB64, raw) {
		t.Errorf("record %+v, %v", rec, err)
	}
}

// FuzzAppendEvent checks any line comes back intact from its record, and
// as slog would have written it.
func FuzzAppendEvent(f *testing.F) {
	f.Add([]byte(`{"type":"x","text":"\\"}`), "call\n1")
	f.Add([]byte("\x00\x1f\"\\\t abcdefgh ijklmnop"), "")
	f.Add([]byte("sixteen bytes ok\"s\u00fc \u2192 \u2028 and \\ past them\x1b"), "")
	f.Fuzz(func(t *testing.T, raw []byte, callID string) {
		if !utf8.ValidString(callID) {
			return
		}
		e := Event{Time: eventT, RecvTS: 7, Raw: raw, CallID: callID}
		b := AppendEvent(nil, e)
		var rec struct {
			Raw    string `json:"raw"`
			RawB64 []byte `json:"raw_base64"`
			CallID string `json:"call_id"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if got := rec.Raw + string(rec.RawB64); got != string(raw) || rec.CallID != callID {
			t.Fatalf("raw %q, call %q; want %q, %q", got, rec.CallID, raw, callID)
		}
		if utf8.Valid(raw) && !bytes.Equal(b, viaSlog(e)) {
			t.Fatalf("differs from slog:\n%s\n%s", b, viaSlog(e))
		}
	})
}
