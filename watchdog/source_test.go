package watchdog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhoseIsOnePlace reads the package's code: whose work a sample shows
// is decided in whose.go alone (counts, workBetween), and what a
// connection earned in conn.go alone (connDue), so that no other rule
// credits a process's usage or a connection's traffic by itself.
func TestWhoseIsOnePlace(t *testing.T) {
	t.Parallel()
	owner := map[string]string{
		// A sample's usage and a process's place: whose.go.
		"CPU": "whose.go", "Procs": "whose.go", "ReadBytes": "whose.go", "Under": "whose.go", "OwnSession": "whose.go",
		// What a connection shows and earned: conn.go.
		"aliveAt": "conn.go", "contentAt": "conn.go", "Received": "conn.go", "Unread": "conn.go",
		"RecvAgo": "conn.go", "Retransmits": "conn.go", "asked": "conn.go",
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if want, ok := owner[sel.Sel.Name]; ok && want != name {
				t.Errorf("%s: .%s is read outside %s, which alone decides whose evidence it is", fset.Position(sel.Pos()), sel.Sel.Name, want)
			}
			return true
		})
	}
}
