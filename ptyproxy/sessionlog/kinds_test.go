package sessionlog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryRecordTypeHasARow reads the package's source: every struct that
// embeds record (a type Write takes) has its row in kinds, and no two rows
// share a name or a type.
func TestEveryRecordTypeHasARow(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no source: %v", err)
	}
	var records []string
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, field := range st.Fields.List {
					if id, ok := field.Type.(*ast.Ident); ok && id.Name == "record" && len(field.Names) == 0 {
						records = append(records, ts.Name.Name)
					}
				}
			}
			return true
		})
	}
	rows := map[string]bool{}
	for _, k := range kinds {
		rows[k.typ.Name()] = true
	}
	for _, name := range records {
		if !rows[name] {
			t.Errorf("%s embeds record but has no row in kinds", name)
		}
	}
	if len(records) != len(kinds) || len(byMsg) != len(kinds) || len(byType) != len(kinds) {
		t.Errorf("%d record types (%s), %d rows, %d names, %d types", len(records), strings.Join(records, " "), len(kinds), len(byMsg), len(byType))
	}
}
