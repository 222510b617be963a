// Package sourcetest reads the module's own Go code for the tests that
// hold a rule to one place (every child started by the reaper, every log
// file changed through the proved directory, …): the module's root, and
// each non-test Go file parsed, found the same way by every such test.
package sourcetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Root returns the directory of the module's go.mod, at or above the
// test's working directory.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Walk parses every non-test Go file under sub, a slash-separated
// directory of the module ("" for all of it), and calls fn with the file's
// slash-separated path from the module's root. Directories the go command
// ignores (testdata, vendor, and names starting with . or _) are skipped.
func Walk(t testing.TB, sub string, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root := Root(t)
	start := filepath.Join(root, filepath.FromSlash(sub))
	fset := token.NewFileSet()
	err := filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != start && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(filepath.ToSlash(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
