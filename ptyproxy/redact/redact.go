// Package redact hides secrets in what the wrapper writes: the session
// log, the console, the status line, notifications, what MCP clients are
// sent, the HTML page and on_hang's input. It masks finished bytes, so no
// field can slip past it, and its Masked is the only text the writers take.
package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
)

// mask replaces a secret wherever the wrapper writes.
const mask = "[REDACTED]"

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

// New learns the secrets in the agent's arguments and environment. A zero
// Redactor masks only secrets of a known shape.
func New(args, env []string) *Redactor {
	r := &Redactor{}
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--api-key="); ok {
			r.add(v)
		} else if a == "--api-key" && i+1 < len(args) {
			r.add(args[i+1])
		}
	}
	for _, kv := range env {
		name, v, ok := strings.Cut(kv, "=")
		switch {
		case ok && secretName(name):
			r.add(v)
		case ok && headersName(name):
			// name=value,name=value: each value may be a key, and the
			// values are what shows up elsewhere (a curl in a tool call).
			r.add(v)
			for _, h := range strings.Split(v, ",") {
				if _, hv, ok := strings.Cut(h, "="); ok {
					r.add(strings.TrimSpace(hv))
				}
			}
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

// secretName reports whether an environment variable's name says it holds
// a secret: a word of it (between underscores) such as KEY, TOKEN, SECRET,
// PASSWORD, PASSWD, PASS, PAT, AUTH or CREDENTIALS, or PWD beside another
// word (MYSQL_PWD; PWD alone is the working directory). The wrapper's own
// CURSOR_WRAP_NOTIFY is one too: a webhook URL carries its secret.
func secretName(name string) bool {
	if strings.EqualFold(name, "CURSOR_WRAP_NOTIFY") {
		return true
	}
	words := strings.Split(strings.ToUpper(name), "_")
	for _, w := range words {
		switch {
		case strings.Contains(w, "KEY"), strings.Contains(w, "TOKEN"), strings.Contains(w, "SECRET"),
			strings.Contains(w, "PASSWORD"), strings.Contains(w, "PASSWD"), strings.Contains(w, "CREDENTIAL"),
			w == "PASS", w == "PAT", w == "AUTH", w == "COOKIE", w == "PRIVATE":
			return true
		case w == "PWD" && len(words) > 1:
			return true
		}
	}
	return false
}

// headersName reports whether an environment variable holds OTLP export
// headers (OTEL_EXPORTER_OTLP_HEADERS, its per-signal forms, the wrapper's
// CURSOR_WRAP_OTEL_HEADERS): an API key travels in them.
func headersName(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasSuffix(n, "_HEADERS") && (strings.HasPrefix(n, "OTEL_EXPORTER_OTLP_") || n == "CURSOR_WRAP_OTEL_HEADERS")
}

// loggedEnv are the variables whose values a command record keeps: what a
// post-mortem needs, and never a secret. Every other variable is logged by
// name only.
var loggedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TZ", "PWD", "TMPDIR",
	"CURSOR_WRAP_DEPTH", "CURSOR_WRAP_SHELL_FUNC"}

func loggedValue(name string) bool {
	return slices.Contains(loggedEnv, name) || strings.HasPrefix(name, "LC_")
}

// Args returns args with --api-key values masked.
func (r *Redactor) Args(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if strings.HasPrefix(a, "--api-key=") {
			out[i] = "--api-key=" + mask
		} else if a == "--api-key" && i+1 < len(out) {
			out[i+1] = mask
		}
	}
	return out
}

// Env returns env as a command record keeps it: the variables of a short
// list with their values, every other one by its name alone.
func (r *Redactor) Env(env []string) []string {
	out := slices.Clone(env)
	for i, kv := range out {
		if name, _, ok := strings.Cut(kv, "="); ok && !loggedValue(name) {
			out[i] = name
		}
	}
	return out
}

// redact returns b with every secret masked; b itself when there is none.
func (r *Redactor) redact(b []byte) []byte {
	if r == nil {
		r = &Redactor{}
	}
	if !r.suspect(b) {
		return b
	}
	out := bytes.Clone(b)
	for _, s := range r.secrets {
		out = bytes.ReplaceAll(out, s, []byte(mask))
	}
	for _, t := range tokenShapes {
		if bytes.Contains(out, t.prefix) {
			out = maskAfter(out, t.prefix, t.min, t.upper)
		}
	}
	if bytes.IndexByte(out, '@') >= 0 && bytes.Contains(out, urlScheme) {
		out = maskURLPasswords(out)
	}
	return out
}

// A tokenShape is a well-known kind of credential: a prefix at a word
// start and at least min token characters after it (only A–Z and 0–9 when
// upper). The prefix stays visible, so a reader knows what was there.
// anchor is the index in prefix of its rarest byte, which the quick look
// for secrets searches for.
type tokenShape struct {
	prefix []byte
	min    int
	upper  bool
	anchor int
}

var tokenShapes = []tokenShape{
	{[]byte("Bearer "), 8, false, 0},
	{[]byte("sk-"), 16, false, 2},          // OpenAI, Anthropic (sk-ant-…)
	{[]byte("sk_"), 16, false, 2},          // Stripe secret keys: sk_live_…, sk_test_…
	{[]byte("rk_"), 16, false, 2},          // Stripe restricted keys
	{[]byte("ghp_"), 20, false, 3},         // GitHub tokens: personal,
	{[]byte("gho_"), 20, false, 3},         // OAuth,
	{[]byte("ghu_"), 20, false, 3},         // user-to-server,
	{[]byte("ghs_"), 20, false, 3},         // server-to-server,
	{[]byte("ghr_"), 20, false, 3},         // refresh,
	{[]byte("github_pat_"), 20, false, 10}, // fine-grained
	{[]byte("glpat-"), 20, false, 5},       // GitLab
	{[]byte("xoxb-"), 10, false, 4},        // Slack: bot,
	{[]byte("xoxp-"), 10, false, 4},        // user,
	{[]byte("xoxa-"), 10, false, 4},        // app,
	{[]byte("xapp-"), 10, false, 4},        // app-level
	{[]byte("AKIA"), 16, true, 0},          // AWS access key ids
	{[]byte("AIza"), 30, false, 0},         // Google API keys
	{[]byte("hf_"), 30, false, 2},          // Hugging Face
	{[]byte("npm_"), 30, false, 3},         // npm
	{[]byte("eyJ"), 30, false, 2},          // JWTs: base64 of {"…
}

// anchors groups the shapes by their anchor byte.
var anchors = func() []anchorGroup {
	var out []anchorGroup
	for _, t := range tokenShapes {
		c := t.prefix[t.anchor]
		i := slices.IndexFunc(out, func(g anchorGroup) bool { return g.c == c })
		if i < 0 {
			i = len(out)
			out = append(out, anchorGroup{c: c})
		}
		out[i].shapes = append(out[i].shapes, t)
		if t.anchor > 0 {
			out[i].before[t.prefix[t.anchor-1]] = true
		} else {
			out[i].first = true
		}
	}
	return out
}()

// An anchorGroup is the shapes that share an anchor byte c. before marks
// the bytes that come just before the anchor in one of them, so most places
// the anchor is found are passed over at a glance; first says one shape
// starts with it.
type anchorGroup struct {
	c      byte
	shapes []tokenShape
	before [256]bool
	first  bool
}

var urlScheme = []byte("://")

// suspect is the quick look at every record: does b hold a secret the
// redactor knows, a token of a known shape, or a password in a URL? It
// searches for each shape's rarest byte (searches the CPU does many bytes
// at a time) and checks the few places it finds.
func (r *Redactor) suspect(b []byte) bool {
	for _, g := range anchors {
		for off := 0; off < len(b); {
			i := bytes.IndexByte(b[off:], g.c)
			if i < 0 {
				break
			}
			i += off
			if !g.first && (i == 0 || !g.before[b[i-1]]) {
				off = i + 1
				continue
			}
			for _, t := range g.shapes {
				if start := i - t.anchor; start >= 0 && bytes.HasPrefix(b[start:], t.prefix) && wordStart(b, start) &&
					tokenRun(b[start+len(t.prefix):], t.upper) >= t.min {
					return true
				}
			}
			off = i + 1
		}
	}
	if bytes.IndexByte(b, '@') >= 0 && bytes.Contains(b, urlScheme) {
		return true
	}
	for _, s := range r.secrets {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// tokenRun is how many token characters b starts with.
func tokenRun(b []byte, upper bool) int {
	n := 0
	for n < len(b) && tokenChar(b[n]) && (!upper || upperChar(b[n])) {
		n++
	}
	return n
}

// maskAfter masks runs of token characters, at least min long, that follow
// prefix at a word start.
func maskAfter(b, prefix []byte, min int, upper bool) []byte {
	var out []byte
	rest := b
	for {
		i := bytes.Index(rest, prefix)
		if i < 0 {
			return append(out, rest...)
		}
		j := i + len(prefix)
		n := tokenRun(rest[j:], upper)
		out = append(out, rest[:j]...)
		if wordStart(rest, i) && n >= min {
			out = append(out, mask...)
		} else {
			out = append(out, rest[j:j+n]...)
		}
		rest = rest[j+n:]
	}
}

// wordStart reports whether b[i] starts a word: no word character before
// it, counting a JSON escape (\n, \t, \") as a break, since records hold
// the agent's text escaped.
func wordStart(b []byte, i int) bool {
	switch {
	case i == 0 || !wordChar(b[i-1]):
		return true
	case i >= 2 && b[i-2] == '\\' && (b[i-1] == 'n' || b[i-1] == 't' || b[i-1] == 'r'):
		return true
	}
	return false
}

// maskURLPasswords masks the password of credentials in a URL:
// postgres://user:secret@host becomes postgres://user:[REDACTED]@host.
func maskURLPasswords(b []byte) []byte {
	var out []byte
	rest := b
	for {
		i := bytes.Index(rest, urlScheme)
		if i < 0 {
			return append(out, rest...)
		}
		j := i + len(urlScheme)
		out = append(out, rest[:j]...)
		rest = rest[j:]
		// user:password@ — no '/', space, quote or '@' in either part.
		k, colon := 0, -1
		for k < len(rest) && !bytes.ContainsRune([]byte("/ \t\n\"'@<>"), rune(rest[k])) {
			if rest[k] == ':' && colon < 0 {
				colon = k
			}
			k++
		}
		if colon > 0 && k < len(rest) && rest[k] == '@' && k > colon+1 {
			out = append(out, rest[:colon+1]...)
			out = append(out, mask...)
			rest = rest[k:]
		}
	}
}

// wordChar is a character a word goes on with: "KEY=sk-…" and "/sk-…"
// start a new one.
func wordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

func upperChar(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func tokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' || c == '/' || c == '='
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

func (rh redactHandler) text(s string) string { return rh.r.MaskString(s).String() }

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
