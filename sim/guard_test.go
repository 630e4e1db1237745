package sim_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// guardedRoots are the trees that run on a simulation path (docs/design.md,
// principle 1). reports/ and cmd/ may use goroutines: parallelism lives
// only across worlds, in sweeps.
var guardedRoots = []string{"ablation", "sim", "nodes", "model", "checks", "metrics", "scenarios"}

// forbiddenCalls are package-level functions that read the wall clock or
// block on it.
var forbiddenCalls = map[string][]string{
	"time": {"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"},
}

// violation is one finding of the determinism guard.
type violation struct {
	pos string
	msg string
}

// goPackage is the subset of `go list -json` the guard needs.
type goPackage struct {
	Dir        string
	ImportPath string
	GoFiles    []string
	Export     string
	Standard   bool
}

// listPackages runs `go list -export -deps` so that the guard can type-check
// each package against compiled export data, which tells map ranges apart.
func listPackages(t testing.TB, root string) (targets []goPackage, export map[string]string) {
	pattern := "./..."
	if p := os.Getenv("KUBESIM_GUARD_PATTERN"); p != "" {
		pattern = p // narrow the guard while other packages are being written
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json", pattern)
	cmd.Dir = root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "go list: %s", errb.String())
	export = map[string]string{}
	dec := json.NewDecoder(&out)
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		export[p.ImportPath] = p.Export
		if p.Standard {
			continue
		}
		rel, err := filepath.Rel(root, p.Dir)
		require.NoError(t, err)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		for _, g := range guardedRoots {
			if top == g {
				targets = append(targets, p)
			}
		}
	}
	return targets, export
}

// checkPackage returns the determinism violations in one package's non-test
// files.
func checkPackage(fset *token.FileSet, imp types.Importer, dir, path string, files []*ast.File) ([]violation, error) {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(path, fset, files, info); err != nil {
		return nil, err
	}
	var out []violation
	report := func(n ast.Node, msg string) {
		out = append(out, violation{pos: fset.Position(n.Pos()).String(), msg: msg})
	}
	for _, f := range files {
		exempt := exemptLines(fset, f)
		for _, im := range f.Imports {
			switch strings.Trim(im.Path.Value, `"`) {
			case "sync", "sync/atomic":
				report(im, "imports "+im.Path.Value+": the simulated world runs on one goroutine")
			case "math/rand":
				report(im, "imports math/rand (v1): use the world's seeded math/rand/v2 streams")
			case "crypto/rand":
				report(im, "imports crypto/rand: randomness must come from the seed")
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				report(n, "go statement")
			case *ast.SelectStmt:
				report(n, "select statement")
			case *ast.SendStmt:
				report(n, "channel send")
			case *ast.ChanType:
				report(n, "channel type")
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					report(n, "channel receive")
				}
			case *ast.SelectorExpr:
				if obj, ok := info.Uses[n.Sel]; ok && obj.Pkg() != nil {
					if fn, ok := obj.(*types.Func); ok && fn.Type().(*types.Signature).Recv() == nil {
						for _, name := range forbiddenCalls[obj.Pkg().Path()] {
							if name == obj.Name() {
								report(n, obj.Pkg().Path()+"."+name+": use the virtual clock")
							}
						}
						if p := obj.Pkg().Path(); p == "math/rand/v2" && !strings.HasPrefix(obj.Name(), "New") {
							report(n, "global math/rand/v2."+obj.Name()+": draw from a seeded stream")
						}
					}
				}
			case *ast.RangeStmt:
				tv, ok := info.Types[n.X]
				if !ok {
					return true
				}
				if _, isMap := tv.Type.Underlying().(*types.Map); isMap {
					if !exempt[fset.Position(n.Pos()).Line] {
						report(n, "range over a map: iterate sim.SortedKeys, or explain with a '// determinism: <reason>' comment on the line before")
					}
				}
			}
			return true
		})
	}
	return out, nil
}

// exemptLines returns the lines that follow a "// determinism:" comment
// with a reason.
func exemptLines(fset *token.FileSet, f *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if reason, ok := strings.CutPrefix(text, "determinism:"); ok && strings.TrimSpace(reason) != "" {
				lines[fset.Position(c.Pos()).Line+1] = true
			}
		}
	}
	return lines
}

func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	require.NoError(t, err)
	return filepath.Dir(dir)
}

// TestDeterminismGuard reads the source of every package on a simulation
// path and fails on anything that could make a seed replay differently:
// goroutines, channels, select, sync, the wall clock, global or crypto
// randomness, and map ranges whose order could reach behaviour.
func TestDeterminismGuard(t *testing.T) {
	root := repoRoot(t)
	targets, export := listPackages(t, root)
	require.NotEmpty(t, targets)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(export[path])
	})
	var all []violation
	for _, p := range targets {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			require.NoError(t, err)
			files = append(files, f)
		}
		v, err := checkPackage(fset, imp, p.Dir, p.ImportPath, files)
		require.NoError(t, err, "type-checking %s", p.ImportPath)
		all = append(all, v...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].pos < all[j].pos })
	for _, v := range all {
		t.Errorf("%s: %s", v.pos, v.msg)
	}
}

// TestDeterminismGuardCatches proves the guard fails on each thing it
// forbids: a source file full of violations must produce one finding each.
func TestDeterminismGuardCatches(t *testing.T) {
	src := `package bad

import (
	"math/rand"
	"sync"
	"time"
	v2 "math/rand/v2"
)

var mu sync.Mutex

func f(m map[string]int) int {
	go func() {}()
	c := make(chan int, 1)
	c <- 1
	<-c
	select {}
	_ = time.Now()
	time.Sleep(1)
	_ = rand.Intn(3)
	_ = v2.IntN(3)
	_ = v2.New(v2.NewPCG(1, 2))
	n := 0
	for k := range m {
		n += len(k)
	}
	// determinism: summing is order-independent.
	for _, v := range m {
		n += v
	}
	return n
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "bad.go", src, parser.ParseComments)
	require.NoError(t, err)
	v, err := checkPackage(fset, importer.Default(), "", "bad", []*ast.File{f})
	require.NoError(t, err)
	var msgs []string
	for _, x := range v {
		msgs = append(msgs, x.msg)
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{
		"imports \"sync\"", "imports math/rand (v1)", "go statement", "channel type", "channel send",
		"channel receive", "select statement", "time.Now", "time.Sleep", "global math/rand/v2.IntN",
		"range over a map",
	} {
		require.Contains(t, joined, want)
	}
	require.Equal(t, 1, strings.Count(joined, "range over a map"), "the exempted range must pass")
	require.NotContains(t, joined, "NewPCG", "seeded constructors are allowed")
}
