package job

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// wallClock are the time package's functions that read the system's clock
// or wait on it.
var wallClock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick"}

// ownClock are the functions of this package that may read the system's
// clock themselves, and why.
var ownClock = map[string]string{
	"readableWithin": "a deadline on a file, which the kernel's poll keeps on the system clock, " +
		"as ptyproxy's drain of the PTY does",
}

// TestJobReadsItsClock reads the package's non-test files and fails where
// a function other than those of ownClock reads the system's clock or
// waits on it: the run, the restart policy, the logs it opens and the
// records it writes take the time from the run's clock, which a test can
// fake.
func TestJobReadsItsClock(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	used := map[string]bool{}
	read := 0
	for _, name := range files {
		if filepath.Ext(name) != ".go" || len(name) > 8 && name[len(name)-8:] == "_test.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		read++
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "time" || !slices.Contains(wallClock, sel.Sel.Name) {
					return true
				}
				if _, ok := ownClock[fn.Name.Name]; ok {
					used[fn.Name.Name] = true
					return true
				}
				p := fset.Position(sel.Pos())
				t.Errorf("%s:%s: %s reads time.%s: take the time from the run's clock (j.clock())", name, strconv.Itoa(p.Line), fn.Name.Name, sel.Sel.Name)
				return true
			})
		}
	}
	if read < 5 {
		t.Fatalf("read %d files, want the package's", read)
	}
	for fn, why := range ownClock {
		if !used[fn] {
			t.Errorf("%s may read the system's clock (%s) but does not: drop it from ownClock", fn, why)
		}
	}
}
