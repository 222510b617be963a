package sessionlog

import (
	"bytes"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/redact"
)

// TestRedactedRecords checks redaction where it is used: in records,
// where a secret appears JSON-escaped, once or twice.
func TestRedactedRecords(t *testing.T) {
	t.Parallel()
	r := redact.New(nil, []string{"ANTHROPIC_API_KEY=quote\"and\\slash"})
	var b bytes.Buffer
	rec := NewRecorder(r, SinkTo(&b))
	rec.Write(Stderr{Line: `{"text":"the key is quote\"and\\slash"}`})
	rec.Write(OnHang{Command: "X=quote\"and\\slash"})
	if strings.Contains(b.String(), "and\\\\slash") || strings.Count(b.String(), "[REDACTED]") != 2 {
		t.Errorf("records %s", b.String())
	}
}

// TestRedactBase64: a line that is not UTF-8 is kept in base64, which
// hides a secret from masking: the Recorder masks it before encoding.
func TestRedactBase64(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	rec := NewRecorder(redact.New([]string{"--api-key", "key_live_0123456789"}, nil), SinkTo(&b))
	line := []byte("\xff bad byte, then sk-ant-api03-ABCDEFGHIJKLMNOP and key_live_0123456789")
	rec.Events(rec.AppendEvent(nil, Event{Raw: line, Len: int64(len(line))}))
	_, r, err := Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got := string(r.(*EventLine).Text())
	if strings.Contains(got, "ABCDEFGHIJKLMNOP") || strings.Contains(got, "key_live") || !strings.Contains(got, "\xff bad byte") {
		t.Errorf("logged %q", got)
	}
}
