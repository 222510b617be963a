package reaper

import (
	"go/ast"
	"go/token"
	"path"
	"testing"

	"cursor-wrap/scripts/sourcetest"
)

// TestOneSentinelPerFailure reads the module's non-test Go files: why the
// agent cannot be run is said by this package's ErrNotFound and
// ErrNotExecutable alone (ptyproxy and shellhook each declared a pair,
// which the exit-status policy had to test both of).
func TestOneSentinelPerFailure(t *testing.T) {
	t.Parallel()
	sourcetest.Walk(t, "", func(rel string, fset *token.FileSet, f *ast.File) {
		if path.Dir(rel) == "ptyproxy/reaper" {
			return
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.Name == "ErrNotFound" || n.Name == "ErrNotExecutable" {
						t.Errorf("%s:%d declares %s: wrap reaper's (cursor-wrap/ptyproxy/reaper)", rel, fset.Position(n.Pos()).Line, n.Name)
					}
				}
			}
		}
	})
}
