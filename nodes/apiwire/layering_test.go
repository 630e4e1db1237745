package apiwire_test

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/kubesim/kubesim/"

// clientTrees are the trees that speak the API as clients of the API
// server: they must reach it only through the wire protocol (this package).
var clientTrees = []string{"nodes/client", "nodes/controllers", "nodes/kubelet", "nodes/scheduler", "nodes/apiload"}

// serverTree is the API server's tree. Of it, clients may import only
// apiTrace, the API layer's trace events: clients emit most of them (calls
// and returns, informer events, relists, stores, server state), and
// TestSharedPackagesAreLeaves keeps it free of server code.
const (
	serverTree = module + "nodes/apiserver"
	apiTrace   = serverTree + "/apitrace"
)

// packageImports is one package's non-test imports, by its directory
// relative to the repository root.
type packageImports struct {
	dir     string
	imports []string
}

// packagesUnder reads, with go/build, the non-test imports of every Go
// package in the trees under root. Tests may stand up a real API server
// (as integration tests do), so test files are not read.
func packagesUnder(t *testing.T, root string, trees []string) []packageImports {
	var out []packageImports
	for _, tree := range trees {
		err := filepath.WalkDir(filepath.Join(root, tree), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
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
			out = append(out, packageImports{dir: filepath.ToSlash(rel), imports: p.Imports})
			return err
		})
		require.NoError(t, err, tree)
	}
	return out
}

// serverImports lists "dir imports path" for each import of pkgs under
// serverTree other than apiTrace.
func serverImports(pkgs []packageImports) []string {
	var bad []string
	for _, p := range pkgs {
		for _, imp := range p.imports {
			if (imp == serverTree || strings.HasPrefix(imp, serverTree+"/")) && imp != apiTrace {
				bad = append(bad, p.dir+" imports "+imp)
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

// TestClientsDoNotImportTheServer: the API server's clients (client-go's
// machinery, the controllers, kubelets, schedulers and workloads) depend on
// the wire protocol, never on the server's package, as client-go depends
// on apimachinery and not on kube-apiserver.
func TestClientsDoNotImportTheServer(t *testing.T) {
	pkgs := packagesUnder(t, repoRoot(t), clientTrees)
	for _, tree := range clientTrees {
		require.True(t, slices.ContainsFunc(pkgs, func(p packageImports) bool { return p.dir == tree || strings.HasPrefix(p.dir, tree+"/") }),
			"no package read under %s", tree)
	}
	require.Empty(t, serverImports(pkgs), "clients must reach the API server through nodes/apiwire only")
}

// TestSharedPackagesAreLeaves: the packages both sides share import no
// other package of the simulated processes: the wire protocol only model,
// the trace events only sim.
func TestSharedPackagesAreLeaves(t *testing.T) {
	root := repoRoot(t)
	for _, c := range []struct {
		dir     string
		allowed []string
	}{
		{"nodes/apiwire", []string{module + "model"}},
		{"nodes/apiserver/apitrace", []string{module + "sim"}},
	} {
		pkgs := packagesUnder(t, root, []string{c.dir})
		require.Len(t, pkgs, 1, c.dir)
		for _, imp := range pkgs[0].imports {
			if strings.HasPrefix(imp, module) {
				require.Contains(t, c.allowed, imp, "%s may import only %v of this module", c.dir, c.allowed)
			}
		}
	}
}

// TestLayeringCatches: the rule reports a client package that imports the
// server (in its code, not its tests), and lets the trace events through.
func TestLayeringCatches(t *testing.T) {
	root := t.TempDir()
	write := func(path, src string) {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, path), []byte(src), 0o644))
	}
	write("nodes/kubelet/kubelet.go", "package kubelet\n\nimport _ \""+serverTree+"\"\n")
	write("nodes/client/cache/cache.go", "package cache\n\nimport _ \""+apiTrace+"\"\n")
	write("nodes/scheduler/scheduler.go", "package scheduler\n")
	write("nodes/scheduler/scheduler_test.go", "package scheduler\n\nimport _ \""+serverTree+"\"\n")
	write("nodes/controllers/gc/gc.go", "package gc\n\nimport _ \""+serverTree+"/apiwire\"\n")
	got := serverImports(packagesUnder(t, root, []string{"nodes/kubelet", "nodes/client", "nodes/scheduler", "nodes/controllers"}))
	require.Equal(t, []string{
		"nodes/kubelet imports " + serverTree,
		"nodes/controllers/gc imports " + serverTree + "/apiwire",
	}, got)
}
