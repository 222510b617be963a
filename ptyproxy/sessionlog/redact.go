package sessionlog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
)

// Mask replaces a secret wherever the wrapper writes.
const Mask = "[REDACTED]"

// A Redactor hides secrets in what the wrapper writes: values of
// --api-key, values of environment variables whose names say they hold a
// secret, "Bearer …" tokens and "sk-…"-shaped keys, wherever they appear.
// It works on the bytes of finished records, so no field can slip past it.
type Redactor struct {
	secrets [][]byte // known values, raw and as JSON writes them
}

// minSecret is the shortest known value hidden everywhere: shorter ones
// would mask unrelated text; they are still masked where they are named.
const minSecret = 6

// NewRedactor learns the secrets in the agent's arguments and environment.
func NewRedactor(args, env []string) *Redactor {
	r := &Redactor{}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--api-key="); ok {
			r.add(v)
		} else if a == "--api-key" && i+1 < len(args) {
			r.add(args[i+1])
		}
	}
	for _, kv := range env {
		if name, v, ok := strings.Cut(kv, "="); ok && SecretName(name) {
			r.add(v)
		}
	}
	return r
}

// add learns a secret in the forms it takes in a record: as is, escaped
// once (a field of the record), and escaped twice (inside an agent's JSON
// line that the record holds as a string).
func (r *Redactor) add(v string) {
	if len(v) < minSecret {
		return
	}
	form := []byte(v)
	for range 3 {
		if !slices.ContainsFunc(r.secrets, func(s []byte) bool { return bytes.Equal(s, form) }) {
			r.secrets = append(r.secrets, form)
		}
		form = jsonEscape(form)
	}
}

// jsonEscape returns b as it appears inside a JSON string.
func jsonEscape(b []byte) []byte {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(b))
	s := bytes.TrimSpace(out.Bytes())
	return s[1 : len(s)-1]
}

// SecretName reports whether an environment variable's name says it holds
// a secret. The wrapper's own CURSOR_WRAP_NOTIFY does: a webhook URL
// carries its secret.
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	if up == "CURSOR_WRAP_NOTIFY" {
		return true
	}
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD"} {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// Args returns args with --api-key values masked.
func (r *Redactor) Args(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if strings.HasPrefix(a, "--api-key=") {
			out[i] = "--api-key=" + Mask
		} else if a == "--api-key" && i+1 < len(out) {
			out[i+1] = Mask
		}
	}
	return out
}

// Env returns env with the values of secret-named variables masked.
func (r *Redactor) Env(env []string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if name, _, ok := strings.Cut(kv, "="); ok && SecretName(name) {
			out[i] = name + "=" + Mask
		}
	}
	return out
}

// Redact returns b with every secret masked; b itself when there is none.
func (r *Redactor) Redact(b []byte) []byte {
	if !r.suspect(b) {
		return b
	}
	out := bytes.Clone(b)
	for _, s := range r.secrets {
		out = bytes.ReplaceAll(out, s, []byte(Mask))
	}
	out = maskAfter(out, []byte("Bearer "), 8)
	out = maskAfter(out, []byte("sk-"), 16)
	return out
}

func (r *Redactor) suspect(b []byte) bool {
	if bytes.Contains(b, []byte("Bearer ")) || bytes.Contains(b, []byte("sk-")) {
		return true
	}
	for _, s := range r.secrets {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// maskAfter masks runs of token characters, at least min long, that follow
// prefix at a word start.
func maskAfter(b, prefix []byte, min int) []byte {
	var out []byte
	rest := b
	for {
		i := bytes.Index(rest, prefix)
		if i < 0 {
			return append(out, rest...)
		}
		j := i + len(prefix)
		n := 0
		for j+n < len(rest) && tokenChar(rest[j+n]) {
			n++
		}
		atWordStart := i == 0 || !tokenChar(rest[i-1])
		out = append(out, rest[:j]...)
		if atWordStart && n >= min {
			out = append(out, Mask...)
		} else {
			out = append(out, rest[j:j+n]...)
		}
		rest = rest[j+n:]
	}
}

func tokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' || c == '/' || c == '='
}

// Writer returns a writer that redacts each write before passing it on.
// Each write must hold whole records, as slog handlers make them.
func (r *Redactor) Writer(w io.Writer) io.Writer { return redactWriter{r, w} }

type redactWriter struct {
	r *Redactor
	w io.Writer
}

func (rw redactWriter) Write(p []byte) (int, error) {
	if _, err := rw.w.Write(rw.r.Redact(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Handler returns h behind redaction: every record's message and
// attribute values are masked before h sees them.
func (r *Redactor) Handler(h slog.Handler) slog.Handler { return redactHandler{r, h} }

type redactHandler struct {
	r *Redactor
	h slog.Handler
}

func (rh redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return rh.h.Enabled(ctx, l) }

func (rh redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, rh.text(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(rh.attr(a))
		return true
	})
	return rh.h.Handle(ctx, out)
}

func (rh redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		masked[i] = rh.attr(a)
	}
	return redactHandler{rh.r, rh.h.WithAttrs(masked)}
}

func (rh redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{rh.r, rh.h.WithGroup(name)}
}

func (rh redactHandler) text(s string) string { return string(rh.r.Redact([]byte(s))) }

// attr masks a value that can hold text; numbers, times and the like pass.
func (rh redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString, slog.KindAny:
		return slog.String(a.Key, rh.text(v.String()))
	case slog.KindGroup:
		group := v.Group()
		masked := make([]any, len(group))
		for i, g := range group {
			masked[i] = rh.attr(g)
		}
		return slog.Group(a.Key, masked...)
	}
	return a
}
