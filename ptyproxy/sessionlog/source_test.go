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

// fileChanges are the calls that create, rename or remove a file or a
// directory, by import path. openFlags are those that do so only when
// their flags ask to create (O_CREATE, O_CREAT, O_TRUNC).
var (
	fileChanges = map[string][]string{
		"os": {"Create", "CreateTemp", "Mkdir", "MkdirAll", "MkdirTemp", "Remove", "RemoveAll", "Rename", "WriteFile",
			"Symlink", "Link", "Truncate", "OpenRoot", "OpenInRoot", "CopyFS"},
		"io/ioutil":             {"WriteFile", "TempFile", "TempDir"},
		"syscall":               {"Creat", "Link", "Mkdir", "Mkdirat", "Rename", "Renameat", "Rmdir", "Symlink", "Unlink", "Unlinkat"},
		"golang.org/x/sys/unix": {"Creat", "Link", "Linkat", "Mkdir", "Mkdirat", "Mkfifo", "Mknod", "Rename", "Renameat", "Renameat2", "RenamexNp", "RenameatxNp", "Rmdir", "Symlink", "Symlinkat", "Unlink", "Unlinkat"},
	}
	openFlags = map[string][]string{
		"os":                    {"OpenFile"},
		"syscall":               {"Open", "Openat"},
		"golang.org/x/sys/unix": {"Open", "Openat", "Openat2"},
	}
)

// theDir is where the log directory's one place is: its files, and in them
// the function that proves a directory and the methods of what it returns.
var (
	theDir      = []string{"ptyproxy/sessionlog/dir.go", "ptyproxy/sessionlog/dir_linux.go", "ptyproxy/sessionlog/dir_darwin.go"}
	theDirFuncs = []string{"openDir", "renameNoReplace"} // and the methods of *logDir
)

// Code that changes files that are no session logs, and why. By directory
// for code that never runs in the wrapper, by function ("dir:name") for
// the rest.
var (
	exemptDirs = map[string]string{
		"ptyproxy/fakeagent": "the fake agent's steps, in a process of its own",
		"scripts/mockmodel":  "the mock model server's port file and log, for tests",
		"scripts/testenv":    "the tests' home directory",
	}
	exemptFuncs = map[string]string{
		"ptyproxy/cli/configcmd:Run":     "config --init: the config file, created new (O_EXCL), and its directory",
		"ptyproxy/cli/inspect:writeHTML": "inspect --html -o FILE: the page, to the file the user named",
		"ptyproxy/cli/demo:run":          "the demo's own log dir, made new and private by MkdirTemp, and the transcript it replays, a temporary file outside it",
		"ptyproxy/cli/demo:makeDirs":     "demo --install-agent: the demo agent's directories under the data home, which --remove-agent removes while empty",
		"ptyproxy/cli/demo:writeAgent":   "demo --install-agent: the demo agent's script, written whole beside itself and renamed over",
		"ptyproxy/cli/demo:removeAgent":  "demo --remove-agent: the demo agent's script, checked to be ours, and the empty directories --install-agent made",
	}
)

// TestEveryLogFileChangeIsInItsDir reads every non-test Go file of the
// module, whatever GOOS it builds for, and fails where a file or directory
// is created, renamed or removed other than through the one place that
// first proves the log directory may be written (openDir and the methods
// of the logDir it returns), outside the exempt code. doctor's write probe
// is a run's (Probe).
func TestEveryLogFileChangeIsInItsDir(t *testing.T) {
	t.Parallel()
	files, uses := 0, map[string]int{}
	sourcetest.Walk(t, "", func(rel string, fset *token.FileSet, f *ast.File) {
		files++
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, c := range fileChangesIn(fset, f) {
			switch {
			case slices.Contains(theDir, rel):
				if !slices.Contains(theDirFuncs, c.fn) && c.recv != "logDir" {
					t.Errorf("%s:%s %s in %s, which is not openDir or a method of *logDir: a change in the log directory goes through what openDir proved", rel, c.at, c.what, c.fn)
				}
				uses[rel]++
			case exemptDirs[dir] != "":
				uses[dir]++
			case exemptFuncs[dir+":"+c.fn] != "":
				uses[dir+":"+c.fn]++
			default:
				t.Errorf("%s:%s %s in %s: a file is created, renamed or removed in a log directory only by sessionlog's openDir and the logDir it returns (Open, Prune, Probe); "+
					"for a file that is no session log, add %s:%s to exemptFuncs with the reason", rel, c.at, c.what, c.fn, dir, c.fn)
			}
		}
		if dir == "ptyproxy/sessionlog" {
			for _, at := range logDirsMade(fset, f) {
				t.Errorf("%s:%s makes a logDir outside openDir: only openDir proves a directory", rel, at)
			}
		}
	})
	if files < 50 {
		t.Errorf("read %d Go files of the module, want the whole module", files)
	}
	for _, p := range theDir[:2] {
		if uses[p] == 0 {
			t.Errorf("%s changes no file: is the log directory's place still there?", p)
		}
	}
	for dir, why := range exemptDirs {
		if uses[dir] == 0 {
			t.Errorf("%s is exempt (%s) but changes no file: drop it from exemptDirs", dir, why)
		}
	}
	for fn, why := range exemptFuncs {
		if uses[fn] == 0 {
			t.Errorf("%s is exempt (%s) but changes no file: drop it from exemptFuncs, or name the function it moved to", fn, why)
		}
	}
}

// A fileChange is a call that changes a file, where it is.
type fileChange struct {
	at, what string
	fn, recv string // the enclosing function, and its receiver's type
}

// fileChangesIn returns the calls in f that create, rename or remove a
// file or a directory.
func fileChangesIn(fset *token.FileSet, f *ast.File) []fileChange {
	local := localImports(f, fileChanges, openFlags)
	var out []fileChange
	for _, imp := range f.Imports {
		if imp.Name != nil && imp.Name.Name == "." && local["."] != "" {
			p := fset.Position(imp.Pos())
			out = append(out, fileChange{at: strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column), what: "a dot import of " + local["."] + ", which hides what changes files"})
		}
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		recv := ""
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			recv = typeName(fd.Recv.List[0].Type)
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
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
			path, ok := local[x.Name]
			if !ok {
				return true
			}
			name := sel.Sel.Name
			if slices.Contains(fileChanges[path], name) || slices.Contains(openFlags[path], name) && creates(call) {
				p := fset.Position(sel.Pos())
				out = append(out, fileChange{at: strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column), what: x.Name + "." + name, fn: fd.Name.Name, recv: recv})
			}
			return true
		})
	}
	return out
}

// creates reports whether an open call's arguments name a flag that
// creates or empties a file.
func creates(call *ast.CallExpr) bool {
	found := false
	for _, a := range call.Args {
		ast.Inspect(a, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && (id.Name == "O_CREATE" || id.Name == "O_CREAT" || id.Name == "O_TRUNC") {
				found = true
			}
			return !found
		})
	}
	return found
}

// logDirsMade returns where f makes a logDir other than in openDir.
func logDirsMade(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || fd.Name.Name == "openDir" {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if cl, ok := n.(*ast.CompositeLit); ok && typeName(cl.Type) == "logDir" {
				p := fset.Position(cl.Pos())
				out = append(out, strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Column))
			}
			return true
		})
	}
	return out
}

// typeName is the name of a type expression, without its pointer.
func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// localImports maps the file's names of the imports among the tables'
// import paths to their paths (a dot import's name is ".").
func localImports(f *ast.File, tables ...map[string][]string) map[string]string {
	local := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		known := false
		for _, t := range tables {
			_, ok := t[path]
			known = known || ok
		}
		if !known {
			continue
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = path
	}
	return local
}

// TestFileChangesFindsThem checks the scan against code that changes
// files in each way it knows, so that it cannot pass by seeing nothing.
func TestFileChangesFindsThem(t *testing.T) {
	t.Parallel()
	src := `package p
import (
	"os"
	sys "golang.org/x/sys/unix"
)
func (d *logDir) f() {
	os.Remove("a")
	os.OpenFile("a", os.O_WRONLY|os.O_CREATE, 0)
	os.OpenFile("a", os.O_RDONLY, 0)
	sys.Renameat2(0, "a", 0, "b", 0)
	sys.Openat(0, "a", sys.O_CREAT, 0)
	os.MkdirAll("a", 0)
	_ = logDir{}
}
func openDir() { os.CreateTemp("", "x") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range fileChangesIn(fset, f) {
		got = append(got, c.at+" "+c.what+" "+c.recv+"."+c.fn)
	}
	want := []string{"7:2 os.Remove logDir.f", "8:2 os.OpenFile logDir.f", "10:2 sys.Renameat2 logDir.f", "11:2 sys.Openat logDir.f",
		"12:2 os.MkdirAll logDir.f", "15:18 os.CreateTemp .openDir"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q\nwant %q", got, want)
	}
	if made := logDirsMade(fset, f); !slices.Equal(made, []string{"13:6"}) {
		t.Errorf("logDirs made at %q, want 13:6", made)
	}
}
