package config

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestCheckShape: every shape the settings use passes, and nesting or
// dotted names past the bounds are refused at their line, strings and
// comments notwithstanding.
func TestCheckShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		line int
	}{
		{InitText(), 0},
		{"idle_timeout = \"2m\"\nnotify = [\"desktop\", \"https://ntfy.sh/x\"]\n[tool_timeouts]\nshellToolCall = \"10m\"\n[mcp]\nmax_concurrent = 2\n", 0},
		{"activity_cpu_floor = 0.05 # a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r\n", 0},
		{"on_hang = \"" + strings.Repeat("[{", 50) + "\"\n", 0},
		{"on_hang = '''\n" + strings.Repeat("{", 50) + "\n'''\nx = 1\n", 0},
		{"x = " + strings.Repeat("{a=", 4000) + "1" + strings.Repeat("}", 4000) + "\n", 1},
		{"a = 1\n\nx = " + strings.Repeat("[", 9) + "1" + strings.Repeat("]", 9) + "\n", 3},
		{strings.Repeat("a.", 17) + "b = 1\n", 1},
		{"[" + strings.Repeat("a.", 17) + "b]\n", 1},
		{"x = {" + strings.Repeat("a.", 17) + "b = 1}\n", 1},
		{"on_hang = \"unclosed\nx = " + strings.Repeat("{a=", 9) + "1" + strings.Repeat("}", 9) + "\n", 2},
		// At the bounds, and past them only when both are passed at once.
		{"x = " + strings.Repeat("[", 8) + "1" + strings.Repeat("]", 8) + "\n", 0},
		{"x = [[[[[1]]]]]\ny = [[[[[1]]]]]\n", 0},
		{"]]]]\nx = " + strings.Repeat("[", 9) + "1" + strings.Repeat("]", 9) + "\n", 2},
		{strings.Repeat("a.", 15) + "b = 1\n", 0},
		{strings.Repeat("a.", 10) + "b = 1\n" + strings.Repeat("a.", 10) + "b = 1\n", 0},
		{"x = " + strings.Repeat("1.", 20) + "\n", 0},
		{"x = {" + strings.Repeat("a.", 8) + "b = 1, " + strings.Repeat("c.", 8) + "d = 2}\n", 0},
		{"x = [1, " + strings.Repeat("c.", 16) + "d]\n", 1}, // after a comma in brackets, counted as a key
		{"x = 1, " + strings.Repeat("c.", 16) + "d\n", 0},
		// Strings and comments: their brackets do not count, their lines do.
		{"a = \"\"\"\n\n\n\"\"\"\n" + strings.Repeat("a.", 17) + "b = 1\n", 5},
		{"a = '''\n\n'''\n" + strings.Repeat("a.", 17) + "b = 1\n", 4},
		{"a = \"x\\\"" + strings.Repeat("[", 9) + "\"\n", 0},
		{"a = 'x\\'\nb = " + strings.Repeat("[", 9) + "1" + strings.Repeat("]", 9) + "\n", 2},
		{"# " + strings.Repeat("[", 20) + "\nb = 1 # " + strings.Repeat("a.", 20) + "\n", 0},
		{"a = \"\"\"x\"\"" + strings.Repeat("[", 9) + "\"\"\"\n", 0},
		{"a = \"\"\n" + strings.Repeat("a.", 17) + "b = 1\n", 2},
		{"a = \"", 0},
		// A file that ends in a comment, or an empty string, with no newline.
		{"a = 1 # end", 0},
		{"a = \"\"", 0},
		{"a = ''", 0},
		{"a = \"\"\"x\"\"", 0},
		{"a = '''x''", 0},
		{"a = \"\"\"", 0},
	} {
		if line, problem := checkShape([]byte(tc.text)); line != tc.line {
			t.Errorf("%.60q: line %d (%s), want %d", tc.text, line, problem, tc.line)
		}
	}
}

// FuzzCheckShape: what checkShape lets through, the parser reads without
// nesting deeper than the bound; it never panics.
func FuzzCheckShape(f *testing.F) {
	f.Add([]byte(InitText()))
	f.Add([]byte("x = [[1], {a = {b = 'c'}}]\n[t]\n\"q.uoted\" = \"\"\"\nmulti\n\"\"\"\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		if line, _ := checkShape(text); line > 0 || len(text) > 4096 {
			return
		}
		var raw map[string]any
		if _, err := toml.Decode(string(text), &raw); err == nil && depth(raw) > maxNesting+maxDotted+1 {
			t.Errorf("%q parses %d deep", text, depth(raw))
		}
	})
}

func depth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			d = max(d, depth(x))
		}
	case []any:
		for _, x := range v {
			d = max(d, depth(x))
		}
	case []map[string]any:
		for _, x := range v {
			d = max(d, depth(x))
		}
	default:
		return 0
	}
	return d + 1
}
