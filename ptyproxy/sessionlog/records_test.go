package sessionlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/redact"
)

// TestAppendAfterClose: a notification's record reaches an attempt's log
// after the attempt closed it, redacted, and inspect shows it as a note
// without moving the attempt's end.
func TestAppendAfterClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := Open(dir, time.Now(), func(err error) { t.Error(err) })
	rec := NewRecorder(f, nil)
	rec.Write(Command{Attempt: 1, Agent: "cursor"})
	rec.Write(Start{Pid: 42})
	rec.Write(Exit{Cause: "exited"})
	path := f.Path()
	f.Close()
	before, err := Read(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	secrets := redact.New([]string{"--api-key", "secret-value-1"}, nil)
	if err := Append(path, secrets, NotifyFailed{Event: "finish", Target: "https://h/…", Error: "HTTP 403 secret-value-1", Tries: 1}); err != nil {
		t.Fatal(err)
	}
	after, _ := Read(path, time.Second)
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "secret-value-1") {
		t.Errorf("secret appended: %s", data)
	}
	if n := len(after.Notes); n != 1 || after.Notes[0].What != MsgNotifyFailed || after.Notes[0].Detail != "finish to https://h/…: HTTP 403 [REDACTED]" {
		t.Errorf("notes %+v", after.Notes)
	}
	if after.Exit.Duration != before.Exit.Duration || after.Pid != 42 {
		t.Errorf("exit %+v (was %+v), pid %d", after.Exit, before.Exit, after.Pid)
	}
	missing := filepath.Join(dir, "gone.jsonl")
	if err := Append(missing, secrets, NotifySent{}); err == nil {
		t.Error("appended to a log that is not there")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("Append created a log")
	}
}

// TestRedactedRecords checks redaction where it is used: in records,
// where a secret appears JSON-escaped, once or twice.
func TestRedactedRecords(t *testing.T) {
	t.Parallel()
	r := redact.New(nil, []string{"ANTHROPIC_API_KEY=quote\"and\\slash"})
	var b bytes.Buffer
	rec := NewRecorder(&b, r)
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
	rec := NewRecorder(&b, redact.New([]string{"--api-key", "key_live_0123456789"}, nil))
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
