package catalogue_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// TestDeterminism, in the deep catalogue, runs a tenth of every scenario's
// catalogue seeds twice in one process, member counts rotating, and
// compares the trace hashes: nothing leaks from one world into the next.
// (TestCatalogue does it for seed 1 of each in every run, and compares
// the hashes of seeds 1 and 2 across builds and processes.)
func TestDeterminism(t *testing.T) {
	if !*deepFlag {
		t.Skip("the deep catalogue's (-deep); TestCatalogue runs every scenario's seed 1 twice in one process")
	}
	for _, spec := range scenarios.Catalogue() {
		seeds := uint64(spec.Seeds / 10)
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= seeds; seed++ {
				members := 3 + int(seed%3)
				a, err := scenarios.Run(scenarios.Options{Scenario: spec.Name, Members: members, Seed: seed})
				require.NoError(t, err)
				b, err := scenarios.Run(scenarios.Options{Scenario: spec.Name, Members: members, Seed: seed})
				require.NoError(t, err)
				require.Equal(t, a.TraceHash, b.TraceHash, "%s members=%d seed=%d", spec.Name, members, seed)
				require.Equal(t, a.Events, b.Events)
			}
		})
	}
}
