package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFaultWebhookTokenInItsQuery (33.1): a webhook whose token is in its
// query and that has no path, http://host?auth=TOKEN, was shown whole in
// the notify_failed record, the console's warning and config_reloaded: its
// label was cut at the first "/". The host ends at a "/", "?" or "#".
func TestFaultWebhookTokenInItsQuery(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: every delivery fails at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	const first, second = "query-token-4711abcdef", "query-token-0815fedcba"
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, fmt.Sprintf("hard_timeout = \"3s\"\nnotify = [\"http://%s?auth=%s\"]\n", addr, first))
	w := startWatched(t, cfg)
	save(t, cfg, fmt.Sprintf("hard_timeout = \"3s\"\nnotify = [\"http://%s?auth=%s\"]\n", addr, second))
	w.waitLine(t, "config reloaded")
	w.hung(t, "deadline", `"key":"notify","old":"[\"http://`+addr+`?…\"]","new":"[\"http://`+addr+`?…\"]"`)
	w.waitLine(t, "hang notification to http://"+addr+"?… failed")
	logs, _ := filepath.Glob(filepath.Join(w.logDir, "*.jsonl"))
	texts := map[string][]byte{"stderr": []byte(w.stderr.String())}
	for _, p := range logs {
		texts[p], _ = os.ReadFile(p)
	}
	if len(logs) != 1 || !bytes.Contains(texts[logs[0]], []byte(`"msg":"notify_failed"`)) {
		t.Errorf("want one log with a notify_failed record: %v", logs)
	}
	for where, text := range texts {
		for _, token := range []string{first, second} {
			if bytes.Contains(text, []byte(token)) {
				t.Errorf("the webhook's token is in %s:\n%s", where, text)
			}
		}
	}
}

// TestConfigWatcherMasksItsMessages: the config watcher's lines on the
// console (a reload refused, with the value that was wrong) were written
// through a console handler that masked nothing, beside the job's, which
// masked. Every console line now passes the redactor: a token pasted into
// the wrong key is masked in the refusal.
func TestConfigWatcherMasksItsMessages(t *testing.T) {
	t.Parallel()
	const token = "ghp_0123456789abcdefghijABCDEFGHIJ"
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "hard_timeout = \"3s\"\n")
	w := startWatched(t, cfg)
	save(t, cfg, "hard_timeout = \"3s\"\nnotify_on = [\""+token+"\"]\n")
	w.waitLine(t, "config not reloaded")
	w.hung(t, "deadline")
	if strings.Contains(w.stderr.String(), token) || !strings.Contains(w.stderr.String(), "ghp_[REDACTED]") {
		t.Errorf("stderr:\n%s", w.stderr.String())
	}
}
