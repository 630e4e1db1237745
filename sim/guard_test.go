package sim_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/simtest/guard"
)

// guardedRoots are the trees that run on a simulation path (docs/design.md,
// principle 1). reports/ and cmd/ may use goroutines: parallelism lives
// only across worlds, in sweeps.
var guardedRoots = []string{"ablation", "sim", "trace", "nodes", "model", "checks", "clusterstate", "metrics", "scenarios", "catalogue"}

func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	require.NoError(t, err)
	return filepath.Dir(dir)
}

// TestDeterminismGuard reads the source of every package on a simulation
// path and fails on anything that could make a seed replay differently:
// goroutines, channels, select, sync, the wall clock, global or crypto
// randomness, and map ranges whose order could reach behaviour (package
// guard holds the rules; simtest.CheckDeterminism runs them on a user's
// packages).
func TestDeterminismGuard(t *testing.T) {
	var patterns []string
	for _, g := range guardedRoots {
		patterns = append(patterns, "./"+g+"/...")
	}
	if p := os.Getenv("KUBESIM_GUARD_PATTERN"); p != "" {
		patterns = strings.Fields(p) // narrow the guard while other packages are being written
	}
	all, err := guard.Check(repoRoot(t), patterns...)
	require.NoError(t, err)
	for _, v := range all {
		t.Errorf("%s", v)
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
	v, err := guard.CheckFiles(fset, importer.Default(), "bad", []*ast.File{f})
	require.NoError(t, err)
	var msgs []string
	for _, x := range v {
		msgs = append(msgs, x.Msg)
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
