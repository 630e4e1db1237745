package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// TestDeterminism runs every scenario twice in one process at a few seeds
// (with -deep, a fifth of its catalogue seeds), member counts rotating, and
// compares the trace hashes: nothing leaks from one world into the next.
// (TestTraceHashesPinned compares them across builds and processes.)
func TestDeterminism(t *testing.T) {
	for _, spec := range scenarios.Catalogue() {
		seeds := determinismSeeds(spec)
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
