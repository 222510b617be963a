package redact

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// masked is what the redactor writes for s.
func masked(r *Redactor, s string) string { return r.MaskString(s).String() }

// TestTokenShapesAtTheirEdges: each shape is masked from exactly its
// minimum length on, every byte a token holds counting towards it, and
// not one byte shorter; nor after a character that goes on a word.
func TestTokenShapesAtTheirEdges(t *testing.T) {
	t.Parallel()
	r := New(nil, nil)
	for _, shape := range tokenShapes {
		// Every kind of token byte, cut or padded to the shape's minimum.
		body := "azAZ09-_.~+/="
		if shape.upper {
			body = "AZ09"
		}
		for len(body) < shape.min {
			body += "x"
			if shape.upper {
				body = body[:len(body)-1] + "Q"
			}
		}
		body = body[:shape.min]
		token := string(shape.prefix) + body
		for _, tc := range []struct{ in, want string }{
			{token, string(shape.prefix) + mask},
			{"see " + token + " there", "see " + string(shape.prefix) + mask + " there"},
			{token[:len(token)-1], token[:len(token)-1]},
			{"see " + token[:len(token)-1] + " there", "see " + token[:len(token)-1] + " there"},
			{`"a\n` + token + `"`, `"a\n` + string(shape.prefix) + mask + `"`},
			{`"a\t` + token + `"`, `"a\t` + string(shape.prefix) + mask + `"`},
			{`"a\r` + token + `"`, `"a\r` + string(shape.prefix) + mask + `"`},
			{`"a\x` + token + `"`, `"a\x` + token + `"`},
			{`\n` + token, `\n` + string(shape.prefix) + mask},
			{"=" + token, "=" + string(shape.prefix) + mask},
			{"/" + token, "/" + string(shape.prefix) + mask},
		} {
			if got := masked(r, tc.in); got != tc.want {
				t.Errorf("%s: Mask(%q) = %q, want %q", shape.prefix, tc.in, got, tc.want)
			}
		}
		for _, c := range "azAZ09-_." {
			in := string(c) + token
			if got := masked(r, in); got != in {
				t.Errorf("%s inside a word (after %q): Mask = %q, want it as it was", shape.prefix, c, got)
			}
		}
	}
}

// TestUpperTokens: AWS's shape holds capitals and digits only, so a
// lower-case letter, or any other token byte, ends it.
func TestUpperTokens(t *testing.T) {
	t.Parallel()
	r := New(nil, nil)
	for in, want := range map[string]string{
		"AKIAAZ09AZ09AZ09AZ09":  "AKIA" + mask,
		"AKIAAZ09AZ09AZ09AZ0a":  "AKIAAZ09AZ09AZ09AZ0a",
		"AKIAAZ09AZ09AZ09AZ0-":  "AKIAAZ09AZ09AZ09AZ0-",
		"AKIAAZ09AZ09AZ09AZ0@A": "AKIAAZ09AZ09AZ09AZ0@A",
	} {
		if got := masked(r, in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSeveralTokens: every token in a text is masked, and text between
// them, a token too short among them included, is kept.
func TestSeveralTokens(t *testing.T) {
	t.Parallel()
	r := New(nil, nil)
	in := "a sk-0123456789abcdefgh b sk-short c sk-ABCDEFGHIJKLMNOP d ghp_0123456789abcdefghij e"
	want := "a sk-" + mask + " b sk-short c sk-" + mask + " d ghp_" + mask + " e"
	if got := masked(r, in); got != want {
		t.Errorf("Mask(%q)\n got %q\nwant %q", in, got, want)
	}
}

// TestURLPasswords: a URL's password is masked, wherever in the text and
// however many; what is not user:password@ is kept.
func TestURLPasswords(t *testing.T) {
	t.Parallel()
	r := New(nil, nil)
	for in, want := range map[string]string{
		"postgres://u:pw@h":                          "postgres://u:" + mask + "@h",
		"https://user:pw@h":                          "https://user:" + mask + "@h",
		"@ at the start, https://u:pw@h":             "@ at the start, https://u:" + mask + "@h",
		"://u:pw@h":                                  "://u:" + mask + "@h",
		"redis://:p:w@h":                             "redis://:p:w@h",
		"a://u:p1@h and b://v:p2@k":                  "a://u:" + mask + "@h and b://v:" + mask + "@k",
		"redis://u:p:w@h":                            "redis://u:" + mask + "@h",
		"redis://:pw@h":                              "redis://:pw@h",
		"redis://u:@h":                               "redis://u:@h",
		"redis://u@h":                                "redis://u@h",
		"mail me@x via https://h/a:b":                "mail me@x via https://h/a:b",
		"https://u:p w@h":                            "https://u:p w@h",
		"https://u:pw":                               "https://u:pw",
		"x@y https://u:pw":                           "x@y https://u:pw",
		"x@y https://u:pw/x@h":                       "x@y https://u:pw/x@h",
		"x@y ftp://a\"b:c@d":                         "x@y ftp://a\"b:c@d",
		"x@y ftp://a'b:c@d ftp://a<b:c@d":            "x@y ftp://a'b:c@d ftp://a<b:c@d",
		"x@y ftp://a>b:c@d ftp://a\tb:c@d":           "x@y ftp://a>b:c@d ftp://a\tb:c@d",
		"x@y ftp://a\nb:c@d https://u:pw@h":          "x@y ftp://a\nb:c@d https://u:" + mask + "@h",
		"user@host.example https://u:secret@h/p?q=1": "user@host.example https://u:" + mask + "@h/p?q=1",
	} {
		if got := masked(r, in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKnownSecrets: a value learned from the arguments or the environment
// is masked from six bytes on, as is and as JSON escapes it once and twice;
// a shorter one is left, since it would mask unrelated text.
func TestKnownSecrets(t *testing.T) {
	t.Parallel()
	r := New([]string{"--api-key", "abc\"de", "--api-key=12345", "-p", "--api-key"},
		[]string{"APP_TOKEN=six666", "BAD_KEY", "MY_KEY=a\\b\"c/d"})
	for in, want := range map[string]string{
		`key abc"de`:              "key " + mask,
		`{"k":"abc\"de"}`:         `{"k":"` + mask + `"}`,
		`{"raw":"abc\\\"de"}`:     `{"raw":"` + mask + `"}`,
		"short 12345":             "short 12345",
		"env six666":              "env " + mask,
		`esc a\\b\"c/d`:           "esc " + mask,
		`twice a\\\\b\\\"c/d`:     "twice " + mask,
		"the flag --api-key ends": "the flag --api-key ends",
	} {
		if got := masked(r, in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
	// Each form is learned once, however often it is given.
	for secret, forms := range map[string]int{"same-secret": 1, `same"secret`: 3} {
		r := New([]string{"--api-key=" + secret, "--api-key", secret}, []string{"A_KEY=" + secret})
		if len(r.secrets) != forms {
			t.Errorf("%s given three times: %d forms learned, want %d", secret, len(r.secrets), forms)
		}
	}
	if got := r.Args([]string{"-p", "--api-key"}); strings.Join(got, " ") != "-p --api-key" {
		t.Errorf("Args with --api-key last = %q", got)
	}
}

// TestSecretEnvNames: the words that say a variable holds a secret, in any
// case, and those that do not.
func TestSecretEnvNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"cursor_wrap_notify": true, "CURSOR_WRAP_NOTIFY": true, "SESSION_COOKIE": true, "SSH_PRIVATE": true,
		"APIKEY": true, "my_token": true, "X_SECRETS": true, "PASSWORDS": true, "PAT": true, "AUTH": true,
		"COOKIES": false, "PRIVATE_IP": true, "PATTERN": false, "PASSING": false, "AUTHORITY": false, "PWD_": true,
		"CURSOR_WRAP_NOTIFY_X": false,
	} {
		if secretName(name) != want {
			t.Errorf("secretName(%s) = %v, want %v", name, !want, want)
		}
	}
	for name, want := range map[string]bool{
		"OTEL_EXPORTER_OTLP_HEADERS": true, "otel_exporter_otlp_logs_headers": true, "CURSOR_WRAP_OTEL_HEADERS": true,
		"MY_HEADERS": false, "OTEL_EXPORTER_OTLP_HEADERS_X": false, "OTEL_EXPORTER_OTLP_ENDPOINT": false,
	} {
		if headersName(name) != want {
			t.Errorf("headersName(%s) = %v, want %v", name, !want, want)
		}
	}
	// A whole headers variable is a secret too, not only its values.
	r := New(nil, []string{"CURSOR_WRAP_OTEL_HEADERS=k1=value-one, k2 = value-two", "OTEL_EXPORTER_OTLP_HEADERS"})
	in := "k1=value-one, k2 = value-two | value-two"
	if got := masked(r, in); got != mask+" | "+mask {
		t.Errorf("Mask(%q) = %q", in, got)
	}
}

// TestEnvKeepsOnlyListedValues: locale variables and the short list keep
// their values; every other variable, and a malformed entry, its name.
func TestEnvKeepsOnlyListedValues(t *testing.T) {
	t.Parallel()
	env := []string{"LC_ALL=C.UTF-8", "LANG=en", "CURSOR_WRAP_DEPTH=1", "XLC_ALL=secret", "NOEQUALS", "EDITOR=vim"}
	want := "LC_ALL=C.UTF-8 LANG=en CURSOR_WRAP_DEPTH=1 XLC_ALL NOEQUALS EDITOR"
	if got := strings.Join(New(nil, nil).Env(env), " "); got != want {
		t.Errorf("Env = %s, want %s", got, want)
	}
	if env[0] != "LC_ALL=C.UTF-8" || env[3] != "XLC_ALL=secret" {
		t.Errorf("Env changed its argument: %q", env)
	}
}

// TestNothingToHideIsNotCopied: a record with nothing to hide is written
// as it came, without a copy; one with a secret is copied, never changed.
func TestNothingToHideIsNotCopied(t *testing.T) {
	t.Parallel()
	r := New(nil, []string{"A_TOKEN=hunter22"})
	for _, in := range []string{"plain text", "k-0123456789abcdefghij", "-0123456789abcdefghij", "mail@x", "http://h/p"} {
		b := []byte(in)
		if got := r.Mask(b).Bytes(); &got[0] != &b[0] {
			t.Errorf("Mask(%q) copied a record with nothing to hide", in)
		}
	}
	b := []byte("pw hunter22")
	if got := r.Mask(b).Bytes(); string(got) != "pw "+mask || string(b) != "pw hunter22" {
		t.Errorf("Mask = %q, its argument now %q", got, b)
	}
}

// TestHandler: a record's message, its attributes, those given once with
// With, and those in groups are masked; numbers and times pass as they are.
func TestHandler(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	r := New([]string{"--api-key", "key-123456"}, nil)
	h := r.Handler(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelInfo,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	log := slog.New(h).With("with", "w key-123456").WithGroup("g")
	log.Info("msg key-123456", "s", "key-123456", "any", struct{ K string }{"key-123456"}, "n", 42,
		"d", time.Second, slog.Group("sub", "x", "key-123456", "y", 7))
	log.Debug("hidden key-123456")
	want := `level=INFO msg="msg [REDACTED]" with="w [REDACTED]" g.s=[REDACTED] g.any={[REDACTED]} g.n=42 g.d=1s g.sub.x=[REDACTED] g.sub.y=7` + "\n"
	if buf.String() != want {
		t.Errorf("logged\n %q\nwant\n %q", buf.String(), want)
	}
	if h.Enabled(context.Background(), slog.LevelDebug) || !h.Enabled(context.Background(), slog.LevelWarn) {
		t.Error("Enabled is not the wrapped handler's")
	}
}

// TestNilRedactor: a nil Redactor knows no secret and masks the known
// shapes all the same.
func TestNilRedactor(t *testing.T) {
	t.Parallel()
	var r *Redactor
	in := "key sk-0123456789abcdefgh, pw hunter22"
	if got := r.MaskString(in).String(); got != "key sk-"+mask+", pw hunter22" {
		t.Errorf("Mask(%q) = %q", in, got)
	}
}
