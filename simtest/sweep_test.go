package simtest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sweep"
)

// TestRegisteredSpecSweeps: a registered spec can be swept by name, and
// its failing runs become corpus entries that load and replay by name to
// the same trace.
func TestRegisteredSpecSweeps(t *testing.T) {
	scenarios.MustRegister(userSpec("user-swept", "node-1"))
	out := t.TempDir()
	sum, err := sweep.Run(sweep.Config{Grid: sweep.Grid{Scenario: "user-swept", Members: []int{3}, Seeds: 3, SeedBase: 1}, Parallel: 1, Out: out})
	require.NoError(t, err)
	require.Equal(t, 3, sum.Ran)
	require.Positive(t, sum.Failed, "seed 2 crashes node-1 (TestFailureReplays)")

	files, err := scenarios.CorpusFiles(out + "/corpus")
	require.NoError(t, err)
	require.Len(t, files, sum.Failed, "one corpus entry per failing run")
	var seeds []uint64
	for _, f := range files {
		entry, opts, err := scenarios.LoadCorpusEntry(f)
		require.NoError(t, err)
		require.Equal(t, "user-swept", opts.Scenario)
		require.False(t, entry.Expect["user-node-1-never-crashes"])
		res, err := scenarios.Run(opts)
		require.NoError(t, err)
		require.False(t, res.OK, "the entry replays the failure by name")
		seeds = append(seeds, res.Seed)
	}
	require.Contains(t, seeds, uint64(2))
}
