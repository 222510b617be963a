package sourcetest

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWalk: the module's files are found from its root, paths slashed and
// relative to it, tests and testdata left out, and a sub-directory alone
// when one is named.
func TestWalk(t *testing.T) {
	root := Root(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("Root %s has no go.mod: %v", root, err)
	}
	var all, here []string
	Walk(t, "", func(rel string, _ *token.FileSet, f *ast.File) { all = append(all, rel) })
	Walk(t, "scripts/sourcetest", func(rel string, _ *token.FileSet, f *ast.File) { here = append(here, rel) })
	for _, want := range []string{"main.go", "watchdog/watchdog.go", "scripts/sourcetest/sourcetest.go"} {
		if !slices.Contains(all, want) {
			t.Errorf("Walk of the module lacks %s", want)
		}
	}
	for _, rel := range all {
		if filepath.Base(rel) == "sourcetest_test.go" || filepath.Base(filepath.Dir(rel)) == "testdata" {
			t.Errorf("Walk read %s", rel)
		}
	}
	if len(here) != 1 || here[0] != "scripts/sourcetest/sourcetest.go" {
		t.Errorf("Walk of scripts/sourcetest read %q", here)
	}
}
