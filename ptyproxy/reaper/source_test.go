package reaper

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cursor-wrap/scripts/sourcetest"
)

// starters are the functions and types that start a program, by import
// path: a child started with one of them outside this package is one the
// orphan reaper can take the exit status of, and a program started (or
// exec'd in place of the process, as cursor-wrap mcp and an unwatched
// agent are) other than through Cmd.Start or Exec does not start as a
// shell would: a script without "#!" fails with "exec format error".
var starters = map[string][]string{
	"os/exec":               {"Command", "CommandContext", "Cmd"},
	"os":                    {"StartProcess", "ProcAttr"},
	"syscall":               {"ForkExec", "StartProcess", "Exec", "SYS_FORK", "SYS_VFORK", "SYS_CLONE", "SYS_CLONE3", "SYS_EXECVE", "SYS_EXECVEAT"},
	"golang.org/x/sys/unix": {"Exec", "SYS_FORK", "SYS_VFORK", "SYS_CLONE", "SYS_CLONE3", "SYS_EXECVE", "SYS_EXECVEAT"},
	"github.com/creack/pty": {"Start", "StartWithSize", "StartWithAttrs"},
}

// exempt are the directories, relative to the module's root, whose code
// may start children by itself, and why.
var exempt = map[string]string{
	"ptyproxy/reaper": "the reaper itself",
	"ptyproxy/fakeagent": "the fake agent, which runs in a process of its own that never calls ptyproxy.Init " +
		"(the wrapper's binary and the test binaries run it before Init, when their arguments ask for it)",
	"scripts/bench": "the benchmark's programs, which start their own pipes and PTYs and never call ptyproxy.Init",
	"scripts/testenv": "test support, imported by test binaries only, whose go env runs from a TestMain that never " +
		"calls ptyproxy.Init (scripts/e2e's and shellhook's)",
}

// TestEveryChildStartsHere reads every non-test Go file of the module,
// whatever GOOS it builds for, and fails where a program is started, as a
// child or in place of the process, other than through this package's Cmd
// or Exec, outside the exempt directories.
func TestEveryChildStartsHere(t *testing.T) {
	t.Parallel()
	files, uses := 0, map[string]int{} // uses: by exempt directory
	sourcetest.Walk(t, "", func(rel string, fset *token.FileSet, f *ast.File) {
		files++
		dir := path.Dir(rel)
		for _, at := range childStarts(fset, f) {
			if _, ok := exempt[dir]; ok {
				uses[dir]++
				continue
			}
			t.Errorf("%s:%s starts a program outside the reaper: use reaper.Command or reaper.CommandContext (cursor-wrap/ptyproxy/reaper), or reaper.Exec in place of the process, "+
				"or, for a process that never calls ptyproxy.Init, add its directory to exempt with the reason", rel, at)
		}
	})
	// The scan must see the tree, and each exemption must still be needed.
	if files < 50 {
		t.Errorf("read %d Go files of the module, want the whole module", files)
	}
	for dir, why := range exempt {
		if uses[dir] == 0 {
			t.Errorf("%s is exempt (%s) but starts no child: drop it from exempt", dir, why)
		}
	}
}

// childStarts returns the positions, as "line:column", where f names a
// starter.
func childStarts(fset *token.FileSet, f *ast.File) []string {
	local := map[string]string{} // the file's name of an import → its path
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := starters[path]; !ok {
			continue
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			p := fset.Position(imp.Pos())
			out = append(out, strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Column)+" (a dot import of "+path+" hides what starts a child)")
		}
		local[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if path, ok := local[x.Name]; ok && slices.Contains(starters[path], sel.Sel.Name) {
			p := fset.Position(sel.Pos())
			out = append(out, strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Column)+" ("+x.Name+"."+sel.Sel.Name+")")
		}
		return true
	})
	return out
}

// TestChildStartsFindsThem checks the scan against code that starts
// children in each way it knows, so that it cannot pass by seeing nothing.
func TestChildStartsFindsThem(t *testing.T) {
	t.Parallel()
	src := `package p
import (
	"os"
	run "os/exec"
	"syscall"
	"github.com/creack/pty"
)
func f() {
	run.Command("a").Run()
	_ = &run.Cmd{Path: "/bin/true"}
	os.StartProcess("/bin/true", nil, &os.ProcAttr{})
	syscall.ForkExec("/bin/true", nil, nil)
	syscall.Exec("/bin/true", nil, nil)
	pty.Start(nil)
	exec.Command("not os/exec: a local name")
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := childStarts(fset, f)
	want := []string{"9:2 (run.Command)", "10:7 (run.Cmd)", "11:2 (os.StartProcess)", "11:37 (os.ProcAttr)", "12:2 (syscall.ForkExec)", "13:2 (syscall.Exec)", "14:2 (pty.Start)"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q\nwant %q", got, want)
	}
}
