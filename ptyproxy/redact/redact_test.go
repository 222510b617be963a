package redact

import (
	"fmt"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	args := []string{"-p", "--api-key", "key_live_0123456789", "--model", "m", "--api-key=other-secret-42", "prompt"}
	env := []string{"PATH=/usr/bin", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrst", "GITHUB_TOKEN=ghp_aaaabbbbcccc", "DB_PASSWORD=hunter2hunter", "MY_SECRET=x\"y\\zzzz", "SHORT_KEY=ab", "CURSOR_WRAP_NOTIFY=https://hooks.slack.com/services/T0/B0/abc"}
	r := New(args, env)
	if got := fmt.Sprint(r.Args(args)); got != "[-p --api-key [REDACTED] --model m --api-key=[REDACTED] prompt]" {
		t.Errorf("Args = %s", got)
	}
	if got := strings.Join(r.Env(env), " "); got != "PATH=/usr/bin OPENAI_API_KEY GITHUB_TOKEN DB_PASSWORD MY_SECRET SHORT_KEY CURSOR_WRAP_NOTIFY" {
		t.Errorf("Env = %s", got)
	}
	for in, want := range map[string]string{
		`{"raw":"curl -H 'Authorization: Bearer abc.DEF-123_456' x"}`:        `{"raw":"curl -H 'Authorization: Bearer [REDACTED]' x"}`,
		`key sk-ant-api03-ABCDEFGHIJKLMNOP done`:                             `key sk-[REDACTED] done`,
		`uses key_live_0123456789 and other-secret-42`:                       `uses [REDACTED] and [REDACTED]`,
		`token ghp_aaaabbbbcccc in a tool result`:                            `token [REDACTED] in a tool result`,
		`json "x\"y\\zzzz" escaped`:                                          `json "[REDACTED]" escaped`,
		`task-runner sk-short Bearer tok`:                                    `task-runner sk-short Bearer tok`,
		`nothing to hide`:                                                    `nothing to hide`,
		`"text":"my token:\nghp_0123456789abcdefghijABCDEFGHIJ"`:             `"text":"my token:\nghp_[REDACTED]"`,
		`sk_live_4eC39HqLyjWDarjtT1zdp7dc and rk_live_0123456789abcdef`:      `sk_[REDACTED] and rk_[REDACTED]`,
		`github_pat_11ABCDEFG0123456789_abcdefghijklmnop`:                    `github_pat_[REDACTED]`,
		`glpat-xxxxxxxxxxxxxxxxxxxx xoxb-1234-5678-abcdefghij`:               `glpat-[REDACTED] xoxb-[REDACTED]`,
		`AKIAIOSFODNN7EXAMPLE but not AKIAlowercase0000000`:                  `AKIA[REDACTED] but not AKIAlowercase0000000`,
		`AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY`:                            `AIza[REDACTED]`,
		`DATABASE_URL=postgres://u:pw@h:5432/db and https://example.com/a:b`: `DATABASE_URL=postgres://u:[REDACTED]@h:5432/db and https://example.com/a:b`,
		`auth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123`:            `auth eyJ[REDACTED]`,
		`a ghp_short token, and xghp_0123456789abcdefghij01 inside a word`:   `a ghp_short token, and xghp_0123456789abcdefghij01 inside a word`,
	} {
		if got := r.MaskString(in).String(); got != want {
			t.Errorf("MaskString(%s)\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"GITHUB_PAT": true, "MYSQL_PWD": true, "SMTP_PASSWD": true, "NPM_AUTH": true, "DB_PASS": true,
		"AWS_SECRET_ACCESS_KEY": true, "OPENAI_API_KEY": true, "GH_TOKEN": true, "GOOGLE_CREDENTIALS": true,
		"PATH": false, "PWD": false, "OLDPWD": false, "PATHEXT": false, "HOME": false, "PASSENGER": false, "AUTHOR": false,
	} {
		if secretName(name) != want {
			t.Errorf("secretName(%s) = %v", name, !want)
		}
	}
}

// TestOTLPHeaders: each value of the OTLP export headers is a secret,
// wherever it shows up.
func TestOTLPHeaders(t *testing.T) {
	t.Parallel()
	r := New(nil, []string{"OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=hcteamkey123,dataset=runs01", "OTEL_EXPORTER_OTLP_TRACES_HEADERS=api-key=tracekey456"})
	in := `curl -H "x-honeycomb-team: hcteamkey123" -H "api-key: tracekey456"`
	want := `curl -H "x-honeycomb-team: [REDACTED]" -H "api-key: [REDACTED]"`
	if got := r.MaskString(in).String(); got != want {
		t.Errorf("MaskString(%s)\n got %s\nwant %s", in, got, want)
	}
}

// TestMaskedOnlyFromARedactor: a nil Redactor masks the known shapes, and
// the zero Masked is empty text.
func TestMaskedOnlyFromARedactor(t *testing.T) {
	t.Parallel()
	var r *Redactor
	if got := r.MaskString("key sk-ant-api03-ABCDEFGHIJKLMNOP").String(); got != "key sk-[REDACTED]" {
		t.Errorf("a nil Redactor: %q", got)
	}
	if m := (Masked{}); m.String() != "" || m.Len() != 0 || m.Bytes() != nil {
		t.Errorf("the zero Masked: %q", m.String())
	}
	if got := New(nil, []string{"DB_PASSWORD=hunter2hunter"}).Mask([]byte("pw hunter2hunter")); string(got.Bytes()) != "pw [REDACTED]" || got.Len() != len("pw [REDACTED]") {
		t.Errorf("Mask: %q", got.Bytes())
	}
}
