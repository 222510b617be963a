package mcpserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sentTypes are the MCP SDK's types that carry text to a client.
var sentTypes = []string{"TextContent", "ImageContent", "AudioContent", "EmbeddedResource", "ResourceLink",
	"CallToolResult", "ProgressNotificationParams", "LoggingMessageParams", "CreateMessageParams", "ElicitParams"}

// TestSentOnlyMasked reads the server's code and fails where a type that
// carries text to a client is built other than by sent.go's constructors,
// which take only masked text: the SDK takes plain strings, so this test
// holds the rule that everything sent passed a Redactor.
func TestSentOnlyMasked(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("*.go")
	built := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range sentBuilt(t, name, src) {
			if name == "sent.go" && strings.HasPrefix(b.fn, "sent") {
				built++
				continue
			}
			t.Errorf("%s:%s builds mcp.%s in %s: what is sent to a client is built only by sent.go's constructors (sentResult, sentProgress, sentWarning), from redact.Masked text", name, b.at, b.typ, b.fn)
		}
	}
	if built < 4 {
		t.Errorf("sent.go builds %d of the SDK's types, want its constructors' four: is the scan blind?", built)
	}
}

// A sentBuild is where a sent type is built.
type sentBuild struct{ at, typ, fn string }

// sentBuilt returns where src builds one of sentTypes: a composite literal
// or new() of it.
func sentBuilt(t *testing.T, name string, src []byte) []sentBuild {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	mcpName := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/modelcontextprotocol/go-sdk/mcp" {
			mcpName = "mcp"
			if imp.Name != nil {
				mcpName = imp.Name.Name
			}
		}
	}
	if mcpName == "" {
		return nil
	}
	sent := func(e ast.Expr) string {
		if u, ok := e.(*ast.UnaryExpr); ok {
			e = u.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return ""
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == mcpName && slices.Contains(sentTypes, sel.Sel.Name) {
			return sel.Sel.Name
		}
		return ""
	}
	var out []sentBuild
	for _, d := range f.Decls {
		fn := "(package level)"
		if fd, ok := d.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
		}
		ast.Inspect(d, func(n ast.Node) bool {
			var typ string
			switch n := n.(type) {
			case *ast.CompositeLit:
				typ = sent(n.Type)
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
					typ = sent(n.Args[0])
				}
			}
			if typ != "" {
				p := fset.Position(n.Pos())
				out = append(out, sentBuild{at: strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column), typ: typ, fn: fn})
			}
			return true
		})
	}
	return out
}

// TestSentBuiltFindsThem checks the scan against code that builds the
// sent types in each way it knows.
func TestSentBuiltFindsThem(t *testing.T) {
	t.Parallel()
	src := `package p
import sdk "github.com/modelcontextprotocol/go-sdk/mcp"
var v = &sdk.TextContent{Text: "x"}
func f() {
	_ = sdk.CallToolResult{}
	_ = new(sdk.ProgressNotificationParams)
	_ = sdk.Tool{Name: "not sent"}
}
`
	var got []string
	for _, b := range sentBuilt(t, "p.go", []byte(src)) {
		got = append(got, b.at+" "+b.typ+" "+b.fn)
	}
	want := []string{"3:10 TextContent (package level)", "5:6 CallToolResult f", "6:6 ProgressNotificationParams f"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q\nwant %q", got, want)
	}
}
