package htmltimeline

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"cursor-wrap/ptyproxy/sessionlog/timeline"
	"cursor-wrap/words"
)

// families colour the tool kinds, each kind always the same colour on
// every page, whichever agent named it: a kind takes the class of the
// first family one of its words (shellToolCall: shell, tool, call;
// command_execution; WebFetch) begins with. Red is the verdict's, so no
// family has it.
var families = []struct {
	class string
	words []string
}{
	{"k5", []string{"mcp"}},
	{"k7", []string{"todo", "plan"}},
	{"k4", []string{"web", "fetch", "browse", "url"}},
	{"k6", []string{"task", "agent", "subagent"}},
	{"k0", []string{"shell", "bash", "command", "exec", "terminal", "run"}},
	{"k1", []string{"edit", "write", "patch", "replace", "create", "delete", "change", "notebook", "multiedit"}},
	{"k2", []string{"read", "view", "cat", "open"}},
	{"k3", []string{"grep", "glob", "search", "find", "ls", "list"}},
}

// otherKind is the class of a kind in no family.
const otherKind = "k9"

// kindClass is kind's colour class: its family's, else otherKind.
func kindClass(kind string) string {
	words := kindWords(kind)
	for _, f := range families {
		for _, w := range words {
			for _, start := range f.words {
				if w == start || len(start) > 2 && strings.HasPrefix(w, start) {
					return f.class
				}
			}
		}
	}
	return otherKind
}

// kindWords splits a kind into its lower-case words: at capitals, "_",
// "-", "." and ":" (shellToolCall, command_execution, mcp__srv__tool).
func kindWords(kind string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	upper := false // the rune before was a capital: LS is one word
	for _, r := range kind {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ':' || r == ' ':
			flush()
		case unicode.IsUpper(r):
			if !upper {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		upper = unicode.IsUpper(r)
	}
	flush()
	return words
}

// maxLegendKinds bounds the kinds the legend names; the rest are counted.
const maxLegendKinds = 16

// classes gives each tool kind its colour class (kindClass), and the
// legend's kinds, the commonest first.
func classes(run []*timeline.Timeline) (map[string]string, []legendItem) {
	counts := map[string]int{}
	for _, t := range run {
		for _, c := range t.Calls {
			counts[c.Kind]++
		}
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Or(counts[b]-counts[a], strings.Compare(a, b)) })
	class := map[string]string{}
	var legend []legendItem
	for i, k := range kinds {
		class[k] = kindClass(k)
		switch {
		case i < maxLegendKinds:
			legend = append(legend, legendItem{Class: class[k], Label: words.Cut(words.Display(k), 40), Count: counts[k]})
		case i == maxLegendKinds:
			legend = append(legend, legendItem{Label: "other kinds", Count: counts[k]})
		default:
			legend[len(legend)-1].Count += counts[k]
		}
	}
	return class, legend
}
