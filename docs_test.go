package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docTableRow is one row of the package table in docs/how-it-works.md:
// | `path` | job |
var docTableRow = regexp.MustCompile("^\\| `([^`]+)` \\| (.*) \\|$")

// TestHowItWorksPackageTable keeps the package table of docs/how-it-works.md
// true: one row per package `go list ./...` finds, each saying what that
// package's doc comment says first. The rows may come in any order (the doc
// orders them as a run happens); on a failure, paste the rows it prints.
// The shell scripts in scripts/ are each named in it too.
func TestHowItWorksPackageTable(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	want := map[string]string{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		importPath, doc, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		row, err := packageRow(importPath, doc)
		if err != nil {
			t.Error(err)
			continue
		}
		want[row.path] = row.job
	}

	text, err := os.ReadFile("docs/how-it-works.md")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for line := range strings.Lines(string(text)) {
		if m := docTableRow.FindStringSubmatch(strings.TrimRight(line, "\n")); m != nil {
			if _, dup := got[m[1]]; dup {
				t.Errorf("docs/how-it-works.md lists `%s` twice", m[1])
			}
			got[m[1]] = m[2]
		}
	}

	var fix []string
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if got[path] != want[path] {
			fix = append(fix, fmt.Sprintf("| `%s` | %s |", path, want[path]))
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("docs/how-it-works.md lists `%s`, which go list ./... does not find", path)
		}
	}
	if len(fix) > 0 {
		t.Errorf("docs/how-it-works.md's package table is missing or has stale rows; they should read:\n%s",
			strings.Join(fix, "\n"))
	}

	// The scripts beside the packages are named too.
	scripts, err := filepath.Glob("scripts/*.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scripts {
		if name := filepath.Base(s); !strings.Contains(string(text), "`"+name+"`") {
			t.Errorf("docs/how-it-works.md does not name scripts/%s", name)
		}
	}
}

// docRow is a package as the table shows it.
type docRow struct{ path, job string }

// packageRow turns go list's import path and doc synopsis into a table row:
// the path inside the module (the module itself for the root) and the
// synopsis without its "Package x" or "Command x" opening.
func packageRow(importPath, doc string) (docRow, error) {
	path := strings.TrimPrefix(importPath, "cursor-wrap/")
	for _, opening := range []string{"Package ", "Command "} {
		if rest, ok := strings.CutPrefix(doc, opening); ok {
			if _, job, ok := strings.Cut(rest, " "); ok {
				return docRow{path, strings.ReplaceAll(job, "|", `\|`)}, nil
			}
		}
	}
	return docRow{}, fmt.Errorf("%s: its doc comment should open with \"Package name\" or \"Command name\", not %q", importPath, doc)
}
