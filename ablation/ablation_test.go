package ablation

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegistry: every user-facing entry is complete (a name, a mechanism,
// a scenario, and a check or else metrics), names are unique, and each
// entry's switch is its own.
func TestRegistry(t *testing.T) {
	all := All()
	var internal []string
	for _, a := range registry {
		if a.internal {
			internal = append(internal, a.Name)
		}
	}
	require.Equal(t, []string{"raft-skip-empty-entry", "raft-conf-change-unguarded"}, internal, "the internal switches: SkipEmptyEntry, ConfChangeUnguarded")
	require.Len(t, all, len(registry)-len(internal))
	seen := map[string]bool{}
	for _, a := range all {
		assert.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)+$`, a.Name)
		assert.False(t, seen[a.Name], "duplicate %s", a.Name)
		seen[a.Name] = true
		assert.NotEmpty(t, a.Mechanism, a.Name)
		assert.NotEmpty(t, a.Scenario, a.Name)
		assert.True(t, (a.Check == "") != (a.Measure == ""), "%s: a check or else metrics", a.Name)
		assert.Equal(t, a.Name, a.Switch.String())
	}
	assert.Equal(t, "raft-ack-before-fsync", all[0].Name, "documentation order")
	assert.Equal(t, "apiserver-static-etcd-servers", all[len(all)-1].Name, "documentation order")
}

// TestParse: a name turns on its switch and what it implies, nothing else;
// an internal or unknown name is an error that lists the known ones.
func TestParse(t *testing.T) {
	for _, a := range All() {
		s, err := Parse([]string{a.Name})
		require.NoError(t, err)
		assert.True(t, s.Has(a.Switch), a.Name)
		if a.Switch == CommitOldTerm {
			assert.Equal(t, Of(CommitOldTerm, SkipEmptyEntry), s)
		} else {
			assert.Equal(t, Of(a.Switch), s, a.Name)
		}
	}
	s, err := Parse([]string{"etcd-local-reads", "poll-not-watch"})
	require.NoError(t, err)
	assert.Equal(t, Of(LocalReads, PollNotWatch), s)
	s, err = Parse(nil)
	require.NoError(t, err)
	assert.Zero(t, s)
	for _, n := range []string{"bogus", "raft-skip-empty-entry"} {
		_, err = Parse([]string{n})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "unknown ablation "+strconv.Quote(n)+": run `kubesim ablations` to list them (raft-ack-before-fsync, raft-commit-old-term, ")
	}
}

// TestSet: Of, When and Has agree, and the zero Set has nothing on.
func TestSet(t *testing.T) {
	s := Of(NoDedup, PollNotWatch)
	for _, a := range registry {
		assert.Equal(t, a.Switch == NoDedup || a.Switch == PollNotWatch, s.Has(a.Switch), a.Name)
		assert.False(t, Set{}.Has(a.Switch))
	}
	assert.Equal(t, s, When(true, NoDedup, PollNotWatch))
	assert.Zero(t, When(false, NoDedup))
}

// TestLeaf: the package imports nothing of kubesim, so that every layer,
// the pure Raft core included, may import it.
func TestLeaf(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	require.NoError(t, err)
	for _, imp := range pkg.Imports {
		assert.False(t, strings.HasPrefix(imp, "github.com/kubesim/"), "imports %s", imp)
	}
}

// TestDeclaredInOrder: every switch is declared in switches.go, and the
// registry's order is the file's order, so that no switch depends on Go's
// initialization order across files: the switches' names, read from the
// declare and declareInternal calls of the package's source, are the
// registry's, in order. A switch is a package-level variable whose value
// is a declare or declareInternal call.
func TestDeclaredInOrder(t *testing.T) {
	fset := token.NewFileSet()
	pkg, err := build.ImportDir(".", 0)
	require.NoError(t, err)
	var declared []string
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					call, ok := v.(*ast.CallExpr)
					if !ok {
						continue
					}
					if fn, ok := call.Fun.(*ast.Ident); !ok || (fn.Name != "declare" && fn.Name != "declareInternal") {
						continue
					}
					assert.Equal(t, "switches.go", name, "%s declares a switch", fset.Position(call.Pos()))
					declared = append(declared, declaredName(t, call.Args[0]))
				}
			}
		}
	}
	var names []string
	for _, a := range registry {
		names = append(names, a.Name)
	}
	assert.Equal(t, names, declared)
}

// declaredName is the name a declare or declareInternal argument gives:
// the string literal itself, or an Ablation literal's Name.
func declaredName(t *testing.T, arg ast.Expr) string {
	if lit, ok := arg.(*ast.CompositeLit); ok {
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "Name" {
				arg = kv.Value
			}
		}
	}
	lit, ok := arg.(*ast.BasicLit)
	require.True(t, ok, "a switch's name is a literal")
	s, err := strconv.Unquote(lit.Value)
	require.NoError(t, err)
	return s
}
