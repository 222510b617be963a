package sessionlog

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	args := []string{"-p", "--api-key", "key_live_0123456789", "--model", "m", "--api-key=other-secret-42", "prompt"}
	env := []string{"PATH=/usr/bin", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrst", "GITHUB_TOKEN=ghp_aaaabbbbcccc", "DB_PASSWORD=hunter2hunter", "MY_SECRET=x\"y\\zzzz", "SHORT_KEY=ab"}
	r := NewRedactor(args, env)
	if got := fmt.Sprint(r.Args(args)); got != "[-p --api-key [REDACTED] --model m --api-key=[REDACTED] prompt]" {
		t.Errorf("Args = %s", got)
	}
	if got := strings.Join(r.Env(env), " "); got != "PATH=/usr/bin OPENAI_API_KEY=[REDACTED] GITHUB_TOKEN=[REDACTED] DB_PASSWORD=[REDACTED] MY_SECRET=[REDACTED] SHORT_KEY=[REDACTED]" {
		t.Errorf("Env = %s", got)
	}
	for in, want := range map[string]string{
		`{"raw":"curl -H 'Authorization: Bearer abc.DEF-123_456' x"}`: `{"raw":"curl -H 'Authorization: Bearer [REDACTED]' x"}`,
		`key sk-ant-api03-ABCDEFGHIJKLMNOP done`:                      `key sk-[REDACTED] done`,
		`uses key_live_0123456789 and other-secret-42`:                `uses [REDACTED] and [REDACTED]`,
		`token ghp_aaaabbbbcccc in a tool result`:                     `token [REDACTED] in a tool result`,
		`json "x\"y\\zzzz" escaped`:                                   `json "[REDACTED]" escaped`,
		`task-runner sk-short Bearer tok`:                             `task-runner sk-short Bearer tok`,
		`nothing to hide`:                                             `nothing to hide`,
	} {
		if got := string(r.Redact([]byte(in))); got != want {
			t.Errorf("Redact(%s)\n got %s\nwant %s", in, got, want)
		}
	}
}

// TestRedactedRecords checks redaction where it is used: below slog's JSON
// handler, where a secret appears JSON-escaped inside a record.
func TestRedactedRecords(t *testing.T) {
	t.Parallel()
	r := NewRedactor(nil, []string{"ANTHROPIC_API_KEY=quote\"and\\slash"})
	var b bytes.Buffer
	log := slog.New(slog.NewJSONHandler(r.Writer(&b), nil))
	log.Info("event", "raw", `{"text":"the key is quote\"and\\slash"}`, "env", []string{"X=quote\"and\\slash"})
	if strings.Contains(b.String(), "and\\\\slash") || strings.Count(b.String(), Mask) != 2 {
		t.Errorf("record %s", b.String())
	}
}
