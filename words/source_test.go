package words

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// listed is a package as go list -export -deps tells it.
type listed struct {
	ImportPath, Export, Dir string
	GoFiles                 []string
	Module                  *struct{ Main bool }
}

// TestWordsAreWrittenHere type-checks every package of the module but this
// one (its non-test files, for the GOOS the test runs on) and fails where
// it writes for people what this package writes: a duration rounded by
// hand (.Round on a time.Duration or time.Time: words.Duration), an
// offset or a figure as "%.3f" (words.Offset), or a signal given to fmt
// or its String called (Go's "killed", "interrupt": words.Signal).
func TestWordsAreWrittenHere(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export,Dir,GoFiles,Module", "cursor-wrap/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	var mine []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Main && p.ImportPath != "cursor-wrap/words" {
			mine = append(mine, p)
		}
	}
	if len(mine) < 20 {
		t.Fatalf("listed %d of the module's packages, want them all", len(mine))
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if f := exports[path]; f != "" {
			return os.Open(f)
		}
		return nil, errors.New("no export data for " + path)
	})
	for _, p := range mine {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("%s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			for _, bad := range wordsWrittenBy(info, f) {
				t.Errorf("%s: %s", fset.Position(bad.Pos()), why(info, bad))
			}
		}
	}
}

// wordsWrittenBy returns the calls of f that write what package words
// writes.
func wordsWrittenBy(info *types.Info, f *ast.File) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && why(info, call) != "" {
			out = append(out, call)
		}
		return true
	})
	return out
}

// why says what call writes by hand that words writes, "" for nothing.
func why(info *types.Info, call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if s := info.Selections[sel]; s != nil {
		recv := s.Recv().String()
		switch {
		case sel.Sel.Name == "Round" && (recv == "time.Duration" || recv == "time.Time"):
			return "a duration rounded by hand: words.Duration writes one for people"
		case sel.Sel.Name == "String" && isSignal(s.Recv()):
			return "a signal's String (Go's \"killed\", \"interrupt\"): words.Signal names it as a shell does"
		}
		return ""
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "fmt" {
		return ""
	}
	for _, arg := range call.Args {
		if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, _ := strconv.Unquote(lit.Value); strings.Contains(v, "%.3f") {
				return `"%.3f" by hand: words.Offset writes an offset into a run`
			}
		}
		if tv, ok := info.Types[arg]; ok && isSignal(tv.Type) {
			return "a signal given to fmt." + fn.Name() + " (Go's \"killed\", \"interrupt\"): words.Signal names it as a shell does"
		}
	}
	return ""
}

func isSignal(t types.Type) bool {
	s := t.String()
	return s == "syscall.Signal" || s == "os.Signal" || s == "*syscall.Signal"
}
