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

// helpFlag is a flag's row in a --help: "  --name   what it does".
var helpFlag = regexp.MustCompile(`(?m)^  --([a-z-]+) `)

// TestConfigurationDocListsEveryFlag keeps docs/configuration.md, which
// the README calls "all flags and keys", true to the built binary: each
// flag its --help lists has a row there.
func TestConfigurationDocListsEveryFlag(t *testing.T) {
	t.Parallel()
	help := string(runRaw(t, nil, "--help").stdout)
	doc, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	flags := helpFlag.FindAllStringSubmatch(help, -1)
	if len(flags) < 20 {
		t.Fatalf("--help lists %d flags; the pattern no longer reads it:\n%s", len(flags), help)
	}
	for _, m := range flags {
		if !regexp.MustCompile("(?m)^\\|[^\\n]*`--" + m[1] + "`").Match(doc) {
			t.Errorf("docs/configuration.md's table has no row for --%s", m[1])
		}
	}
}

// TestHelpNamesEveryExitStatus checks that --help names each exit status
// the README's table documents.
func TestHelpNamesEveryExitStatus(t *testing.T) {
	t.Parallel()
	help := string(runRaw(t, nil, "--help").stdout)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "## Exit status")
	table, _, _ = strings.Cut(table, "\n## ")
	var statuses []string
	for line := range strings.Lines(table) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 4 || strings.HasPrefix(cells[1], "---") {
			continue
		}
		last := regexp.MustCompile(`\([^)]*\]\([^)]*\)\)`).ReplaceAllString(cells[len(cells)-2], "") // a link's text is no status
		statuses = append(statuses, regexp.MustCompile(`\b\d+\b`).FindAllString(last, -1)...)
	}
	if !slices.Contains(statuses, "124") {
		t.Fatalf("read no statuses from README.md's exit status table (%q)", statuses)
	}
	for _, s := range statuses {
		if !regexp.MustCompile(`\b` + s + `\b`).MatchString(help) {
			t.Errorf("--help does not name exit status %s, which README.md documents", s)
		}
	}
}

// TestSubcommandHelpListsItsOwnFlags checks that the help of config and
// doctor, which take every flag of the wrapper, lists their own and names
// the wrapper's in one line, rather than listing 30 flags that are not
// about them.
func TestSubcommandHelpListsItsOwnFlags(t *testing.T) {
	t.Parallel()
	for sub, own := range map[string]string{"config": "--init", "doctor": "--shell"} {
		r := runRaw(t, nil, sub, "--help")
		out := string(r.stdout)
		if r.code != 0 || !strings.Contains(out, "  "+own+" ") || !strings.Contains(out, "cursor-wrap --help lists them") {
			t.Errorf("%s --help (exit %d) lacks %s or the line that names the wrapper's flags:\n%s", sub, r.code, own, out)
		}
		if rows := len(helpFlag.FindAllString(out, -1)); rows > 3 {
			t.Errorf("%s --help lists %d flags:\n%s", sub, rows, out)
		}
	}
}
