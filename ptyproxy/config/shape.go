package config

import "fmt"

// Bounds on a config file's shape, far past anything the settings use (a
// table of scalars, a list of strings), checked before the TOML parser
// sees the text: the parser's time and memory grow with the square of the
// nesting (a 16 KB file of inline tables 4,000 deep took a running wrapper
// from 7 MB to 708 MB; 800 KB ran to 24 GB).
const (
	maxNesting = 8  // open brackets and braces at once
	maxDotted  = 16 // parts of a dotted key or table name
)

// checkShape returns the line and the problem of the first place where the
// text nests deeper than maxNesting or a key has more than maxDotted parts;
// 0 and "" when there is none. It reads TOML's strings and comments only
// well enough to skip them.
func checkShape(text []byte) (line int, problem string) {
	line = 1
	depth, parts := 0, 1
	inKey := true // before the '=' of a key/value line, or in a table header
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n':
			line++
			if depth == 0 {
				inKey, parts = true, 1
			}
		case '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			end, lines := skipString(text, i)
			i, line = end, line+lines
		case '[', '{':
			if depth++; depth > maxNesting {
				return line, fmt.Sprintf("nested more than %d deep: no setting is", maxNesting)
			}
			if c == '{' {
				inKey, parts = true, 1 // An inline table holds keys.
			}
		case ']', '}':
			depth = max(depth-1, 0)
		case '=':
			inKey = false
		case ',':
			if depth > 0 {
				inKey, parts = true, 1
			}
		case '.':
			if inKey {
				if parts++; parts > maxDotted {
					return line, fmt.Sprintf("a dotted name of more than %d parts: no setting has one", maxDotted)
				}
			}
		}
	}
	return 0, ""
}

// skipString returns the index of the last byte of the string that starts
// at text[i] (a quote), and how many newlines it holds; an unclosed string
// runs to the end (the parser then says what is wrong).
func skipString(text []byte, i int) (end, lines int) {
	q := text[i]
	multi := i+2 < len(text) && text[i+1] == q && text[i+2] == q
	j := i + 1
	if multi {
		j = i + 3
	}
	for ; j < len(text); j++ {
		switch text[j] {
		case '\n':
			if !multi {
				return j - 1, 0 // A one-line string ends at the line's end.
			}
			lines++
		case '\\':
			if q == '"' {
				j++
			}
		case q:
			if !multi {
				return j, lines
			}
			if j+2 < len(text) && text[j+1] == q && text[j+2] == q {
				return j + 2, lines
			}
		}
	}
	return len(text) - 1, lines
}
