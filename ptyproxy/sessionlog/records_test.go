package sessionlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	redact := NewRedactor([]string{"--api-key", "secret-value-1"}, nil)
	if err := Append(path, redact, NotifyFailed{Event: "finish", Target: "https://h/…", Error: "HTTP 403 secret-value-1", Tries: 1}); err != nil {
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
	if err := Append(missing, redact, NotifySent{}); err == nil {
		t.Error("appended to a log that is not there")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("Append created a log")
	}
}
