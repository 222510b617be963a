package timeline

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestInspectGolden renders the logs in testdata as timelines and compares
// them with the golden files (go test -update rewrites them).
func TestInspectGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"normal", "hang", "corrupt", "usage"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl, err := Read(filepath.Join("testdata", name+".jsonl"), 500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			tl.Format(&b, 500*time.Millisecond, false)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				os.WriteFile(golden, b.Bytes(), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if b.String() != string(want) {
				t.Errorf("timeline differs from %s:\n%s", golden, b.String())
			}
			if _, err := json.Marshal(tl); err != nil {
				t.Errorf("as JSON: %v", err)
			}
		})
	}
}

func TestInspectFacts(t *testing.T) {
	t.Parallel()
	hang, _ := Read("testdata/hang.jsonl", 10*time.Second)
	if hang.SessionID != "hang-0001" || hang.Verdict == nil || hang.Verdict.Reason.Kind != "tool" || len(hang.Calls) != 1 || !hang.Calls[0].Open {
		t.Errorf("hang timeline: %+v", hang)
	}
	if hang.Exit == nil || hang.Exit.Status == nil || *hang.Exit.Status != 124 || len(hang.Kills) < 2 {
		t.Errorf("hang exit %+v kills %+v", hang.Exit, hang.Kills)
	}
	normal, _ := Read("testdata/normal.jsonl", 10*time.Second)
	if normal.Stopped != nil || normal.Exit == nil || *normal.Exit.Status != 0 || len(normal.Calls) != 4 || normal.Model == "" {
		t.Errorf("normal timeline: %+v", normal)
	}
	corrupt, _ := Read("testdata/corrupt.jsonl", 10*time.Second)
	if corrupt.Stopped == nil || corrupt.Stopped.Line != 26 || !strings.Contains(corrupt.Stopped.Error, "cut short") || len(corrupt.Entries) == 0 {
		t.Errorf("corrupt timeline stopped %+v", corrupt.Stopped)
	}
}

// TestInspectNoNegativeOffsets reads a log whose first output was received
// before the start record was written (the reader and the start record race),
// within the command record's millisecond: no row comes out negative.
func TestInspectNoNegativeOffsets(t *testing.T) {
	t.Parallel()
	log := `{"time":"2026-11-25T22:52:57.023946009Z","level":"INFO","msg":"command","attempt":1,"agent":"cursor","path":"/x","argv":["-p"],"watch":"events"}
{"time":"2026-11-25T22:52:57.024100000Z","level":"DEBUG","msg":"event","recv_ts":1795647177023,"type":"system","subtype":"init","raw":"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s-1\"}"}
{"time":"2026-11-25T22:52:57.026000000Z","level":"INFO","msg":"start","pid":27024,"dir":"","tick_ms":5000,"activity_probe":true}
{"time":"2026-11-25T22:52:57.526000000Z","level":"DEBUG","msg":"event","recv_ts":1795647177526,"type":"result","subtype":"success","raw":"{\"type\":\"result\",\"subtype\":\"success\",\"session_id\":\"s-1\"}"}
`
	path := filepath.Join(t.TempDir(), "early.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	tl, err := Read(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Entries) != 2 || tl.Entries[0].At < 0 || tl.Entries[1].At != Millis(503*time.Millisecond) {
		t.Errorf("entries %+v", tl.Entries)
	}
	var b bytes.Buffer
	tl.Format(&b, time.Second, false)
	if strings.Contains(b.String(), "+-") || !strings.Contains(b.String(), "   +0.000s            system/init\n") {
		t.Errorf("timeline:\n%s", b.String())
	}
}

// TestAppendAfterClose: a notification's record reaches an attempt's log
// after the attempt closed it, redacted, and inspect shows it as a note
// without moving the attempt's end.
func TestAppendAfterClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := sessionlog.Open(dir, time.Now(), func(err error) { t.Error(err) })
	rec := sessionlog.NewRecorder(nil, f)
	rec.Write(sessionlog.Command{Attempt: 1, Agent: "cursor"})
	rec.Write(sessionlog.Start{Pid: 42})
	rec.Write(sessionlog.Exit{End: sessionlog.End{Cause: "exited"}})
	path := f.Path()
	f.Close()
	before, err := Read(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	secrets := redact.New([]string{"--api-key", "secret-value-1"}, nil)
	if err := sessionlog.Append(path, secrets, sessionlog.NotifyFailed{Event: "finish", Target: "https://h/…", Error: "HTTP 403 secret-value-1", Tries: 1}); err != nil {
		t.Fatal(err)
	}
	after, _ := Read(path, time.Second)
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "secret-value-1") {
		t.Errorf("secret appended: %s", data)
	}
	if n := len(after.Notes); n != 1 || after.Notes[0].What != "notify_failed" || after.Notes[0].Detail != "finish to https://h/…: HTTP 403 [REDACTED]" {
		t.Errorf("notes %+v", after.Notes)
	}
	if after.Exit.Duration != before.Exit.Duration || after.Pid != 42 {
		t.Errorf("exit %+v (was %+v), pid %d", after.Exit, before.Exit, after.Pid)
	}
	missing := filepath.Join(dir, "gone.jsonl")
	if err := sessionlog.Append(missing, secrets, sessionlog.NotifySent{}); err == nil {
		t.Error("appended to a log that is not there")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("Append created a log")
	}
}
