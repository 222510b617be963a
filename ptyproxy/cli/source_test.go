package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"cursor-wrap/scripts/sourcetest"
)

// processIO are the names, by import path, through which code reads the
// process's arguments or writes to (or reads) its streams rather than
// those it is given: a command that uses one cannot run in process with
// its output captured, and reads or writes what its caller did not give it.
var processIO = map[string][]string{
	"os": {"Args", "Stdin", "Stdout", "Stderr"},
	"flag": {"CommandLine", "Parse", "Parsed", "Args", "Arg", "NArg", "NFlag", "Usage", "PrintDefaults", "Set", "Lookup", "Visit", "VisitAll",
		"Bool", "BoolVar", "BoolFunc", "Int", "IntVar", "Int64", "Int64Var", "Uint", "UintVar", "Uint64", "Uint64Var", "String", "StringVar",
		"Float64", "Float64Var", "Duration", "DurationVar", "TextVar", "Var", "Func"},
	"fmt": {"Print", "Printf", "Println"},
	"log": {"Print", "Printf", "Println", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf", "Panicln", "Writer", "Default"},
}

// TestCommandsUseTheirEnv reads every non-test Go file of this package and
// of each command's package under it, and fails where one reads os.Args or
// the flag package's command line, or touches the process's own streams
// (os.Stdout, fmt.Println, …): a command parses the arguments and writes
// to the streams of the Env it is given, as main gives it the process's.
// It also holds the root of the module to main.go alone among its Go
// files: each command's body is a package here.
func TestCommandsUseTheirEnv(t *testing.T) {
	t.Parallel()
	packages := map[string]bool{}
	sourcetest.Walk(t, "ptyproxy/cli", func(rel string, fset *token.FileSet, f *ast.File) {
		packages[path.Dir(rel)] = true
		for _, at := range processUses(fset, f) {
			t.Errorf("%s:%s: a command reads the arguments and uses the streams of the cli.Env it is given (env.Stdout, env.Fail, …); main alone gives it the process's", rel, at)
		}
	})
	// The scan must see the commands.
	for _, dir := range []string{"ptyproxy/cli", "ptyproxy/cli/wrap", "ptyproxy/cli/sessions", "ptyproxy/cli/doctor"} {
		if !packages[dir] {
			t.Errorf("read no Go file of %s", dir)
		}
	}

	entries, err := os.ReadDir(sourcetest.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".go") && name != "main.go" && name != "main_test.go" {
			t.Errorf("%s is in the module's root, which holds main.go (the command table and the dispatch) and main_test.go alone: "+
				"a command's body goes in a package under ptyproxy/cli, a test that runs the binary in scripts/e2e", name)
		}
	}
}

// processUses returns the positions, as "line:column", where f names one
// of processIO, or calls print or println.
func processUses(fset *token.FileSet, f *ast.File) []string {
	local := map[string]string{} // the file's name of an import → its path
	var out []string
	at := func(n ast.Node, what string) {
		p := fset.Position(n.Pos())
		out = append(out, strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Column)+" ("+what+")")
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := processIO[path]; !ok {
			continue
		}
		name := path
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			at(imp, "a dot import of "+path+" hides what it names")
		}
		local[name] = path
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if path, ok := local[x.Name]; ok && slices.Contains(processIO[path], n.Sel.Name) {
					at(n, x.Name+"."+n.Sel.Name)
				}
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") {
				at(n, id.Name)
			}
		}
		return true
	})
	return out
}

// TestProcessUsesFindsThem checks the scan against code that uses the
// process's arguments and streams in each way it knows, so that it cannot
// pass by seeing nothing.
func TestProcessUsesFindsThem(t *testing.T) {
	t.Parallel()
	src := `package p
import (
	"flag"
	"fmt"
	out "os"
)
func f(fs *flag.FlagSet) {
	_ = out.Args[1:]
	fmt.Fprintln(out.Stderr, "x")
	fmt.Println("x")
	flag.Parse()
	_ = flag.CommandLine
	fs.Parse(nil)
	println("x")
	fmt.Fprintf(nil, "fine")
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := processUses(fset, f)
	want := []string{"8:6 (out.Args)", "9:15 (out.Stderr)", "10:2 (fmt.Println)", "11:2 (flag.Parse)", "12:6 (flag.CommandLine)", "14:2 (println)"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q\nwant %q", got, want)
	}
}
