package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/scripts/testenv"
)

// The tests here run the binary's commands in process, through the table
// and the dispatch, with their streams captured; those that run the
// binary are in scripts/e2e.

func TestMain(m *testing.M) {
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testenv.IsolateConfig()
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// runIn runs the command line args through the table in process, as
// main would, and returns what it wrote and its exit status.
func runIn(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	env := &cli.Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errs, Commands: commands}
	code = run(env, args)
	return out.String(), errs.String(), code
}

// TestCompletionFollowsTheFlags checks that the scripts offer every flag of
// the wrapper's flag set and of each command's, that each flag whose
// values are listed exists, that the wrapper accepts each listed value of
// its own flags, and that the subcommands offered are those the usage
// lists.
func TestCompletionFollowsTheFlags(t *testing.T) {
	t.Parallel()
	var o cli.Options
	fs := cli.NewFlagSet(&o)
	scripts := map[string]string{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		script, stderr, code := runIn(t, "completion", sh)
		if code != 0 {
			t.Fatalf("completion %s: exit %d: %s", sh, code, stderr)
		}
		scripts[sh] = script
	}
	declared := map[string]bool{}
	for _, flags := range append([]*flag.FlagSet{fs}, commandFlagSets()...) {
		flags.VisitAll(func(f *flag.Flag) {
			declared[f.Name] = true
			for sh, script := range scripts {
				name := cli.Dashed(f.Name)
				if sh == "fish" {
					name = "-l " + f.Name + " "
					if len(f.Name) == 1 {
						name = "-s " + f.Name + " "
					}
				}
				if !strings.Contains(script, name) {
					t.Errorf("%s completion lacks %s (of %s)", sh, name, flags.Name())
				}
			}
		})
	}
	for name, values := range cli.Values {
		if !declared[name] {
			t.Errorf("cli.Values names %s, which is not a flag", cli.Dashed(name))
		}
		if fs.Lookup(name) == nil {
			continue
		}
		for _, v := range values.Words {
			if _, stderr, code := runIn(t, "config", "--"+name, v); code != 0 {
				t.Errorf("--%s %s, a completion, is refused: exit %d\n%s", name, v, code, stderr)
			}
		}
	}

	usage, _, code := runIn(t, "help")
	if code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^  cursor-wrap ([a-z][a-z-]*)`).FindAllStringSubmatch(usage, -1) {
		listed = append(listed, m[1])
	}
	offered := commands.Names()
	slices.Sort(listed)
	slices.Sort(offered)
	if !slices.Equal(listed, offered) {
		t.Errorf("the usage lists subcommands %q; the completions offer %q", listed, offered)
	}
}

// commandFlagSets are the flag sets of the commands in the table.
func commandFlagSets() []*flag.FlagSet {
	var sets []*flag.FlagSet
	for _, c := range commands {
		sets = append(sets, c.FlagSet())
	}
	return sets
}

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
	pkgs := listPackages(t)
	want := map[string]string{}
	for _, p := range pkgs {
		row, err := packageRow(p.ImportPath, p.Doc)
		if err != nil {
			t.Error(err)
			continue
		}
		want[row.path] = row.job
	}
	checkLayout(t, pkgs)

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

// listedPackage is a package of the module as go list describes it.
type listedPackage struct {
	ImportPath, Doc                    string
	GoFiles, TestGoFiles, XTestGoFiles []string
	Imports                            []string
}

// listPackages lists the module's packages.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Doc,GoFiles,TestGoFiles,XTestGoFiles,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages, want the module's", len(pkgs))
	}
	return pkgs
}

// forbidden are imports the house's design rules out, by importer, and
// why.
var (
	forbidden = map[string][]string{
		"cursor-wrap/ptyproxy":            {"cursor-wrap/ptyproxy/config"},
		"cursor-wrap/ptyproxy/sessionlog": {"cursor-wrap/ptyproxy/config"},
		"cursor-wrap/mcpserver":           {"cursor-wrap/ptyproxy/sessionlog", "cursor-wrap/shellhook"},
	}
	why = map[string]string{
		"cursor-wrap/ptyproxy":            "an attempt is handed its thresholds and finished records; job reads the config",
		"cursor-wrap/ptyproxy/sessionlog": "the log's records are its own types; job fills them from the config",
		"cursor-wrap/mcpserver":           "the MCP server reaches runs, their logs and the agents through job",
	}
)

// checkLayout checks the layout docs/how-it-works.md shows for the
// command line against go list: the root's only Go file is main.go (its
// only test file main_test.go); each package under ptyproxy/cli is a
// command of the table, imported by main and by no package but another
// command; scripts/e2e holds tests alone, and nothing imports it; and
// no package imports what forbidden rules out for it.
func checkLayout(t *testing.T, pkgs []listedPackage) {
	const module, commandsDir, e2e = "cursor-wrap", "cursor-wrap/ptyproxy/cli/", "cursor-wrap/scripts/e2e"
	importedBy := map[string][]string{}
	var root listedPackage
	for _, p := range pkgs {
		if p.ImportPath == module {
			root = p
		}
		for _, imp := range p.Imports {
			importedBy[imp] = append(importedBy[imp], p.ImportPath)
		}
	}
	if !slices.Equal(root.GoFiles, []string{"main.go"}) || len(root.XTestGoFiles) > 0 ||
		slices.ContainsFunc(root.TestGoFiles, func(f string) bool { return f != "main_test.go" }) {
		t.Errorf("the module's root holds %q and tests %q: main.go alone, and main_test.go", root.GoFiles, append(root.TestGoFiles, root.XTestGoFiles...))
	}
	for _, p := range pkgs {
		switch {
		case strings.HasPrefix(p.ImportPath, commandsDir):
			if !slices.Contains(root.Imports, p.ImportPath) {
				t.Errorf("%s is not a command of main's table", p.ImportPath)
			}
			for _, by := range importedBy[p.ImportPath] {
				if by != module && !strings.HasPrefix(by, commandsDir) {
					t.Errorf("%s imports the command %s: only main and the commands do", by, p.ImportPath)
				}
			}
		case slices.ContainsFunc(forbidden[p.ImportPath], func(f string) bool { return slices.Contains(p.Imports, f) }):
			t.Errorf("%s imports one of %q: %s", p.ImportPath, forbidden[p.ImportPath], why[p.ImportPath])
		case p.ImportPath == e2e:
			if !slices.Equal(p.GoFiles, []string{"doc.go"}) || len(importedBy[e2e]) > 0 {
				t.Errorf("%s holds %q and is imported by %q: tests alone, and its doc.go", e2e, p.GoFiles, importedBy[e2e])
			}
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
	help, _, _ := runIn(t, "--help")
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
	help, _, _ := runIn(t, "--help")
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
		out, _, code := runIn(t, sub, "--help")
		if code != 0 || !strings.Contains(out, "  "+own+" ") || !strings.Contains(out, "cursor-wrap --help lists them") {
			t.Errorf("%s --help (exit %d) lacks %s or the line that names the wrapper's flags:\n%s", sub, code, own, out)
		}
		if rows := len(helpFlag.FindAllString(out, -1)); rows > 3 {
			t.Errorf("%s --help lists %d flags:\n%s", sub, rows, out)
		}
	}
}

// TestDoctorConfigAdvice: the fix doctor gives for a broken config file
// works on that file: it prints every key, and exits 0 (26.6). (For a
// shell it has no functions for: no shell starts.)
func TestDoctorConfigAdvice(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("idel_timeout = \"5s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := runIn(t, "doctor", "--config", cfg, "--shell", "tcsh")
	// Not on the test's PATH, the wrapper is named by its path.
	_, advice, _ := strings.Cut(stdout+stderr, "`"+selfPath(t)+" ")
	advice, _, _ = strings.Cut(advice, "`")
	words := append(strings.Fields(advice), "--config", cfg)
	if words[0] != "config" {
		t.Fatalf("doctor's advice is %q; stdout %s", advice, stdout)
	}
	stdout, stderr, code := runIn(t, words...)
	if code != 0 {
		t.Fatalf("cursor-wrap %s: exit %d: %s", strings.Join(words, " "), code, stderr)
	}
	for _, key := range []string{"idle_timeout", "on_hang", "agent_bin", "[tool_timeouts]", "[mcp]", "max_concurrent"} {
		if !strings.Contains(stdout, key) {
			t.Errorf("cursor-wrap %s lacks %s:\n%s", strings.Join(words, " "), key, stdout)
		}
	}
}

// selfPath is the path the commands name this binary by.
func selfPath(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// maxLines bounds a non-test Go file: past it, a file holds more than one
// thing, and a reader loses their way in it.
const maxLines = 450

// TestNoFileOverMaxLines reads every non-test Go file of the module.
func TestNoFileOverMaxLines(t *testing.T) {
	t.Parallel()
	files := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		if n := bytes.Count(data, []byte("\n")); n > maxLines {
			t.Errorf("%s has %d lines, over %d: split it by what its parts do", path, n, maxLines)
		}
		return nil
	})
	if err != nil || files < 100 {
		t.Fatalf("read %d Go files: %v", files, err)
	}
}
