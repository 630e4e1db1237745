package raft

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ablationPkg is the one kubesim package the core may import: a leaf that
// imports nothing of kubesim (its own test checks that).
const ablationPkg = "github.com/kubesim/kubesim/ablation"

// TestSourceRules enforces principles 1 and 7 of docs/design.md on this package's
// non-test source: no concurrency, clocks, global or crypto randomness, no
// maps (so map order cannot leak), no I/O and no imports of kubesim itself
// but the ablation switches.
func TestSourceRules(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	forbiddenImports := []string{"sync", "time", "math/rand", "crypto/rand", "os", "io", "net", "unsafe", "reflect"}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbiddenImports {
				assert.False(t, path == bad || strings.HasPrefix(path, bad+"/"), "%s imports %s", name, path)
			}
			assert.False(t, strings.HasPrefix(path, "github.com/kubesim/") && path != ablationPkg, "%s imports %s", name, path)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.GoStmt, *ast.SelectStmt, *ast.ChanType, *ast.SendStmt, *ast.MapType:
				t.Errorf("%s: forbidden construct %T", fset.Position(n.Pos()), n)
			}
			return true
		})
		lines := fset.File(f.Pos()).LineCount()
		assert.LessOrEqual(t, lines, 600, "%s is too long", name)
	}
}
