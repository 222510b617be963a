package sessionlog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cursor-wrap/scripts/sourcetest"
)

// fileReads are the calls that open a file for reading, by import path;
// an open with flags reads unless they say O_WRONLY.
var fileReads = map[string][]string{
	"os":                    {"Open", "ReadFile", "OpenFile", "DirFS"},
	"io/ioutil":             {"ReadFile"},
	"syscall":               {"Open", "Openat"},
	"golang.org/x/sys/unix": {"Open", "Openat", "Openat2"},
}

// The readers of session logs: the bounded reader and the directory's own
// (its listing, its lock checks), and timeline.Read, which reads a log
// whole, called only where one log was picked to be shown whole.
const timelinePath = "cursor-wrap/ptyproxy/sessionlog/timeline"

var (
	boundedReaders = []string{"ptyproxy/sessionlog/summary.go", "ptyproxy/sessionlog/dir.go"}
	readsWhole     = map[string]string{
		"ptyproxy/cli/inspect:Run":              "inspect reads the one log it was given, or picked by List or Hangs, whole",
		"ptyproxy/sessionlog/timeline:Attempts": "inspect --html reads the attempts of the run it shows, whole",
	}
)

// TestEveryLogReadIsBounded reads every non-test Go file of the module
// that names package sessionlog or is in it, and fails where a file is
// opened for reading other than by the bounded reader (ReadSummary,
// ReadCommand) and the log directory's own code, or a log is read whole
// (timeline.Read) other than to show the one log inspect picked: lists,
// picks and counts of runs cost the same for a 120 MB log as for a small
// one.
func TestEveryLogReadIsBounded(t *testing.T) {
	t.Parallel()
	files, uses := 0, map[string]int{}
	sourcetest.Walk(t, "", func(rel string, fset *token.FileSet, f *ast.File) {
		inside := strings.HasPrefix(rel, "ptyproxy/sessionlog/")
		if !inside && !imports(f, "cursor-wrap/ptyproxy/sessionlog", timelinePath) {
			return
		}
		files++
		dir := filepath.Dir(rel)
		for _, c := range fileReadsIn(fset, f, dir == "ptyproxy/sessionlog/timeline") {
			switch {
			case slices.Contains(boundedReaders, rel):
				uses[rel]++
			case c.what == "timeline.Read" && readsWhole[dir+":"+c.fn] != "":
				uses[dir+":"+c.fn]++
			case rel == "ptyproxy/sessionlog/timeline/timeline.go" && c.fn == "Read":
				uses["timeline.Read"]++
			default:
				t.Errorf("%s:%s %s in %s: a session log is read to list, pick or count runs only by sessionlog.ReadSummary (or ReadCommand), never whole; "+
					"to show one log whole as inspect does, add %s:%s to readsWhole with the reason", rel, c.at, c.what, c.fn, dir, c.fn)
			}
		}
	})
	if files < 10 {
		t.Errorf("read %d Go files that name sessionlog, want every one", files)
	}
	for _, name := range append(slices.Clone(boundedReaders), "timeline.Read") {
		if uses[name] == 0 {
			t.Errorf("%s reads no file: is the reader still there?", name)
		}
	}
	for fn, why := range readsWhole {
		if uses[fn] == 0 {
			t.Errorf("%s may read a log whole (%s) but does not: drop it from readsWhole, or name the function it moved to", fn, why)
		}
	}
}

// imports reports whether f imports one of paths.
func imports(f *ast.File, paths ...string) bool {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); slices.Contains(paths, p) {
			return true
		}
	}
	return false
}

// fileReadsIn returns the calls in f that open a file for reading, and
// its calls of timeline.Read (of Read itself, in timeline's own file).
func fileReadsIn(fset *token.FileSet, f *ast.File, inTimeline bool) []fileChange {
	local := localImports(f, fileReads, map[string][]string{timelinePath: {"Read"}})
	var out []fileChange
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		at := func(n ast.Node) string {
			p := fset.Position(n.Pos())
			return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); ok && inTimeline && id.Name == "Read" {
				out = append(out, fileChange{at: at(id), what: "timeline.Read", fn: fd.Name.Name})
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			path, name := local[x.Name], sel.Sel.Name
			switch {
			case path == timelinePath && name == "Read":
				out = append(out, fileChange{at: at(sel), what: "timeline.Read", fn: fd.Name.Name})
			case slices.Contains(fileReads[path], name) && !writeOnly(call):
				out = append(out, fileChange{at: at(sel), what: x.Name + "." + name, fn: fd.Name.Name})
			}
			return true
		})
	}
	return out
}

// writeOnly reports whether an open call's flags say O_WRONLY.
func writeOnly(call *ast.CallExpr) bool {
	found := false
	for _, a := range call.Args {
		ast.Inspect(a, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "O_WRONLY" {
				found = true
			}
			return !found
		})
	}
	return found
}

// TestFileReadsFindsThem checks the scan of reads as the scan of changes.
func TestFileReadsFindsThem(t *testing.T) {
	t.Parallel()
	src := `package p
import (
	"os"
	tl "cursor-wrap/ptyproxy/sessionlog/timeline"
)
func list() {
	os.Open("a")
	os.OpenFile("a", os.O_WRONLY|os.O_APPEND, 0)
	os.OpenFile("a", os.O_RDONLY, 0)
	tl.Read("a", 0)
	Read("a", 0)
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, inTimeline := range []bool{false, true} {
		var got []string
		for _, c := range fileReadsIn(fset, f, inTimeline) {
			got = append(got, c.at+" "+c.what+" "+c.fn)
		}
		want := []string{"7:2 os.Open list", "9:2 os.OpenFile list", "10:2 timeline.Read list"}
		if inTimeline {
			want = append(want, "11:2 timeline.Read list")
		}
		if !slices.Equal(got, want) {
			t.Errorf("in timeline %v: found %q\nwant %q", inTimeline, got, want)
		}
	}
}
