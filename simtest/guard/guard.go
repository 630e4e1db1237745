// Package guard is kubesim's determinism guard: it reads the source of Go
// packages that run on a simulation path and reports anything that could
// make one seed replay differently: goroutines, channels, select, sync, the
// wall clock, global or crypto randomness, and ranges over maps whose order
// could reach behaviour. kubesim's own test (sim/guard_test.go) and
// simtest.CheckDeterminism, for a user's packages, both run it.
//
// A range over a map is allowed when the line before it is a comment
// "// determinism: <reason>" (why its order cannot matter); otherwise
// iterate sim.SortedKeys. Test files are not read: tests may use
// goroutines and the wall clock freely.
package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
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
)

// forbiddenCalls are package-level functions that read the wall clock or
// block on it.
var forbiddenCalls = map[string][]string{
	"time": {"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"},
}

// Violation is one finding of the guard: where, and what is forbidden
// there.
type Violation struct {
	Pos string // file:line:column
	Msg string
}

// String prints the violation as the guard reports it: "pos: msg".
func (v Violation) String() string { return v.Pos + ": " + v.Msg }

// goPackage is the subset of `go list -json` the guard needs.
type goPackage struct {
	Dir        string
	ImportPath string
	GoFiles    []string
	Export     string
	Standard   bool
	DepOnly    bool
	Error      *struct{ Err string }
}

// Check lists the packages that patterns match (as `go list` reads them:
// "./...", "./controller", an import path), run from dir, and returns the
// violations in their non-test files, sorted by position. It type-checks
// each package against the compiled export data of its imports (so that
// it can tell a map range from a slice range), which `go list -export`
// builds: the packages must compile. An error means the guard could not
// read them, not that it found something.
func Check(dir string, patterns ...string) ([]Violation, error) {
	if len(patterns) == 0 {
		return nil, fmt.Errorf("determinism guard: no packages named: give package patterns such as ./...")
	}
	targets, export, err := list(dir, patterns)
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("determinism guard: %s match no packages in %s", strings.Join(patterns, " "), dir)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := export[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var all []Violation
	for _, p := range targets {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		v, err := CheckFiles(fset, imp, p.ImportPath, files)
		if err != nil {
			return nil, fmt.Errorf("determinism guard: type-checking %s: %w", p.ImportPath, err)
		}
		all = append(all, v...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Pos < all[j].Pos })
	return all, nil
}

// list runs `go list -export -deps -json` so that the guard can type-check
// each package it is asked for against compiled export data.
func list(dir string, patterns []string) (targets []goPackage, export map[string]string, err error) {
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-json"}, patterns...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("determinism guard: go list %s: %v: %s", strings.Join(patterns, " "), err, strings.TrimSpace(errb.String()))
	}
	export = map[string]string{}
	dec := json.NewDecoder(&out)
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("determinism guard: reading go list: %w", err)
		}
		if p.Error != nil {
			return nil, nil, fmt.Errorf("determinism guard: %s: %s", p.ImportPath, p.Error.Err)
		}
		export[p.ImportPath] = p.Export
		if !p.Standard && !p.DepOnly {
			targets = append(targets, p)
		}
	}
	return targets, export, nil
}

// CheckFiles returns the violations in one package's files, parsed with
// comments into fset, type-checking them as package path with imp. Check
// calls it for each package; a test can call it on source of its own.
func CheckFiles(fset *token.FileSet, imp types.Importer, path string, files []*ast.File) ([]Violation, error) {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(path, fset, files, info); err != nil {
		return nil, err
	}
	var out []Violation
	report := func(n ast.Node, msg string) {
		out = append(out, Violation{Pos: fset.Position(n.Pos()).String(), Msg: msg})
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
				checkCall(n, info, report)
			case *ast.RangeStmt:
				tv, ok := info.Types[n.X]
				if !ok {
					return true
				}
				if _, isMap := tv.Type.Underlying().(*types.Map); isMap && !exempt[fset.Position(n.Pos()).Line] {
					report(n, "range over a map: iterate sim.SortedKeys, or explain with a '// determinism: <reason>' comment on the line before")
				}
			}
			return true
		})
	}
	return out, nil
}

// checkCall reports a selector that names a wall-clock function or global
// randomness.
func checkCall(n *ast.SelectorExpr, info *types.Info, report func(ast.Node, string)) {
	obj, ok := info.Uses[n.Sel]
	if !ok || obj.Pkg() == nil {
		return
	}
	fn, ok := obj.(*types.Func)
	if !ok || fn.Type().(*types.Signature).Recv() != nil {
		return
	}
	for _, name := range forbiddenCalls[obj.Pkg().Path()] {
		if name == obj.Name() {
			report(n, obj.Pkg().Path()+"."+name+": use the virtual clock")
		}
	}
	if p := obj.Pkg().Path(); p == "math/rand/v2" && !strings.HasPrefix(obj.Name(), "New") {
		report(n, "global math/rand/v2."+obj.Name()+": draw from a seeded stream")
	}
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
