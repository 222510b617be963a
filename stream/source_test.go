package stream

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"cursor-wrap/scripts/sourcetest"
)

// TestAgentArgsReadHere: an agent's arguments are read in one place, scan,
// through the agent's flag table. A flag of an agent that takes a value,
// named as a string anywhere else in the module's code, is a second reading
// that the table does not hold (the fake agent had its own list of
// cursor-agent's value flags, the profiles theirs).
func TestAgentArgsReadHere(t *testing.T) {
	t.Parallel()
	// Named on purpose, and why.
	allowed := map[string]string{
		// The wrapper's own --agent, in the resume command it suggests.
		"ptyproxy/job/notify.go --agent": "",
		// The redactor hides whatever follows --api-key, whatever the
		// agent's parser makes of it: a secret stays hidden even where no
		// table would read it as a value.
		"ptyproxy/redact/redact.go --api-key": "",
	}
	valueFlags := map[string]string{}
	for _, p := range profiles {
		for _, f := range p.flags.list {
			for _, n := range f.Names {
				if f.Arity != NoValue && strings.HasPrefix(n, "--") {
					valueFlags[n] = p.Name
				}
			}
		}
	}
	sourcetest.Walk(t, "", func(rel string, fset *token.FileSet, file *ast.File) {
		if strings.HasPrefix(rel, "stream/") {
			return
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			name, _, _ := strings.Cut(s, "=")
			if _, ok := allowed[rel+" "+name]; ok {
				return true
			}
			if agent, ok := valueFlags[name]; err == nil && ok {
				t.Errorf("%s: names %s's flag %s: read agent arguments through stream.Profile, whose flag table knows its values", fset.Position(lit.Pos()), agent, name)
			}
			return true
		})
	})
}
