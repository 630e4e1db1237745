package layers

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/kubesim/kubesim"

// layer is one tree of the module and the trees it may import directly;
// it may also import whatever those may, and its own tree.
type layer struct {
	tree  string
	above []string
}

// layers are docs/design.md's layers, from the floor up: sim and ablation
// import nothing of the module; the Kubernetes objects stand on nothing;
// the trace contracts stand on the kernel and the objects; the simulated
// processes on the trace; the judges (checks, clusterstate, metrics) on
// the trace too, never on a node; the scenarios on all of them; the
// catalogue, a user of the scenarios' registry, on the scenarios; the
// tools on the scenarios (the libraries among them, sweep, reports and
// simtest, take scenarios by name and import no catalogue; internal and
// cmd import it). The longest matching tree decides a package's layer.
var layers = []layer{
	{"sim", nil},
	{"ablation", nil},
	{"model", nil},
	{"buildinfo", nil},
	{"trace", []string{"sim", "ablation", "model"}},
	{"nodes", []string{"trace"}},
	{"checks", []string{"trace"}},
	{"clusterstate", []string{"checks"}},
	{"metrics", []string{"checks"}},
	{"scenarios/nemesis", []string{"nodes"}},
	{"scenarios", []string{"scenarios/nemesis", "clusterstate", "metrics", "buildinfo"}},
	{"catalogue", []string{"scenarios"}},
	{"sweep", []string{"scenarios"}},
	{"reports", []string{"scenarios"}},
	{"simtest", []string{"scenarios"}},
	{"internal", []string{"catalogue", "sweep", "reports", "simtest"}},
	{"cmd", []string{"internal"}},
}

// reach returns the trees that tree may import: its own, and the closure
// of its layer's above.
func reach(tree string) []string {
	out := []string{tree}
	for i := 0; i < len(out); i++ {
		for _, l := range layers {
			if l.tree == out[i] {
				for _, a := range l.above {
					if !slices.Contains(out, a) {
						out = append(out, a)
					}
				}
			}
		}
	}
	return out
}

// forbidden are the rules that ranks alone do not say: a tree that must
// not import another although the ranks would let it.
var forbidden = []struct{ from, to, why string }{
	{"nodes/client", "nodes/apiserver", "clients of the API reach it through trace/apiwire only"},
	{"nodes/controllers", "nodes/apiserver", "clients of the API reach it through trace/apiwire only"},
	{"nodes/kubelet", "nodes/apiserver", "clients of the API reach it through trace/apiwire only"},
	{"nodes/scheduler", "nodes/apiserver", "clients of the API reach it through trace/apiwire only"},
	{"nodes/apiload", "nodes/apiserver", "clients of the API reach it through trace/apiwire only"},
	{"nodes/kubeproxy", "nodes/apiserver", "clients of the API reach it through trace/apiwire only"},
	{"nodes/raft", "nodes", "the Raft core is pure: it imports no other node"},
	{"nodes/raft", "sim", "the Raft core is pure: it imports no simulator"},
	{"nodes/raft", "trace", "the Raft core is pure: it emits no trace"},
}

// within reports whether pkg (a path relative to the module) is tree or
// below it.
func within(pkg, tree string) bool { return pkg == tree || strings.HasPrefix(pkg, tree+"/") }

// layerOf returns the tree of pkg's layer, by the longest match.
func layerOf(pkg string) (string, bool) {
	best := ""
	for _, l := range layers {
		if within(pkg, l.tree) && len(l.tree) > len(best) {
			best = l.tree
		}
	}
	return best, best != ""
}

// violation returns why pkg may not import imp (both relative to the
// module), or "" when it may.
func violation(pkg, imp string) string {
	from, ok := layerOf(pkg)
	if !ok {
		return "package " + pkg + " is in no layer: add its tree to layers"
	}
	to, ok := layerOf(imp)
	if !ok {
		return "package " + imp + " is in no layer: add its tree to layers"
	}
	for _, f := range forbidden {
		if within(pkg, f.from) && within(imp, f.to) && !within(imp, f.from) {
			return fmt.Sprintf("%s imports %s: %s", pkg, imp, f.why)
		}
	}
	if slices.Contains(reach(from), to) {
		return ""
	}
	return fmt.Sprintf("%s (layer %s) imports %s (layer %s): %s may import only %s",
		pkg, from, imp, to, from, strings.Join(reach(from), ", "))
}

// packageImports is one package's non-test imports of this module, by its
// directory relative to the repository root.
type packageImports struct {
	dir     string
	imports []string
}

// readPackages reads, with go/build, the non-test imports of every Go
// package under root, leaving out testdata and nested modules. Tests may
// stand up whole worlds, as integration tests do, so test files are not
// read.
func readPackages(t *testing.T, root string) []packageImports {
	var out []packageImports
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module: its own rules
			}
		}
		p, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var ours []string
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				ours = append(ours, strings.TrimPrefix(strings.TrimPrefix(imp, module), "/"))
			}
		}
		out = append(out, packageImports{dir: filepath.ToSlash(rel), imports: ours})
		return nil
	})
	require.NoError(t, err)
	return out
}

// violations lists every broken rule among pkgs, in walk order.
func violations(pkgs []packageImports) []string {
	var bad []string
	for _, p := range pkgs {
		for _, imp := range p.imports {
			if v := violation(p.dir, imp); v != "" {
				bad = append(bad, v)
			}
		}
	}
	return bad
}

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "repository root")
	return root
}

// TestLayering: every package of the module imports only what its layer
// may, with no exception listed.
func TestLayering(t *testing.T) {
	pkgs := readPackages(t, repoRoot(t))
	require.Greater(t, len(pkgs), 50, "the walk read the module")
	for _, l := range layers {
		require.True(t, slices.ContainsFunc(pkgs, func(p packageImports) bool { return within(p.dir, l.tree) }),
			"no package read under %s: a layer of the rules has gone", l.tree)
	}
	if bad := violations(pkgs); len(bad) > 0 {
		t.Fatalf("%d imports break docs/design.md's layering; the first: %s\nall:\n%s", len(bad), bad[0], strings.Join(bad, "\n"))
	}
}

// TestLayeringCatches: each kind of rule reports the import that breaks
// it, in code and not in tests, and lets the legal ones through.
func TestLayeringCatches(t *testing.T) {
	root := t.TempDir()
	write := func(path, src string) {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, path), []byte(src), 0o644))
	}
	imp := func(pkg string, paths ...string) string {
		s := "package " + filepath.Base(pkg) + "\n\n"
		for _, p := range paths {
			s += "import _ \"" + module + "/" + p + "\"\n"
		}
		return s
	}
	write("checks/a.go", imp("checks", "trace/etcdtrace", "model", "nodes/etcd/mvcc"))
	write("metrics/m.go", imp("metrics", "checks", "nodes/kubelet"))
	write("nodes/kubelet/k.go", imp("kubelet", "nodes/apiserver", "trace/apiwire", "checks"))
	write("nodes/scheduler/s.go", imp("scheduler", "nodes/client"))
	write("nodes/scheduler/s_test.go", imp("scheduler", "nodes/apiserver", "scenarios"))
	write("nodes/raft/r.go", imp("raft", "ablation", "sim"))
	write("sim/w.go", imp("sim", "ablation"))
	write("trace/apitrace/t.go", imp("apitrace", "sim", "model"))
	write("nested/go.mod", "module nested\n")
	write("nested/n.go", imp("nested", "cmd/kubesim"))
	write("scenarios/testdata/x.go", imp("x", "cmd/kubesim"))
	got := violations(readPackages(t, root))
	want := []struct{ from, imp, why string }{
		{"checks", "nodes/etcd/mvcc", "may import only"},
		{"metrics", "nodes/kubelet", "may import only"},
		{"nodes/kubelet", "checks", "may import only"},
		{"nodes/kubelet", "nodes/apiserver", "through trace/apiwire only"},
		{"nodes/raft", "sim", "the Raft core is pure"},
		{"sim", "ablation", "may import only sim"},
	}
	require.Len(t, got, len(want), strings.Join(got, "\n"))
	for i, w := range want {
		require.True(t, strings.HasPrefix(got[i], w.from+" "), got[i])
		require.Contains(t, got[i], "imports "+w.imp)
		require.Contains(t, got[i], w.why)
	}
}

// TestEveryTreeHasALayer: a new top-level tree must be placed in the rules
// before its imports can be judged.
func TestEveryTreeHasALayer(t *testing.T) {
	require.Contains(t, violation("newtree/x", "sim"), "is in no layer")
	require.Contains(t, violation("checks", "newtree/x"), "is in no layer")
	require.Empty(t, violation("checks", "checks/internal/x"))
	require.Empty(t, violation("scenarios", "scenarios/nemesis"))
	require.NotEmpty(t, violation("scenarios/nemesis", "scenarios"))
}
