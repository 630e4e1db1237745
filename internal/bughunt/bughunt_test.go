package bughunt

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRanks: the catalogue gives each rank of the bug-hunt set once, from
// 1 without a gap, so that the set's order is the one its ranks say.
func TestRanks(t *testing.T) {
	ranks := slices.Sorted(slices.Values(Ranks()))
	require.NotEmpty(t, ranks)
	for i, r := range ranks {
		require.Equal(t, i+1, r, "ranks of Spec.BugHunt runs, sorted: each from 1 to %d once", len(ranks))
	}
	require.Len(t, Matrix(), len(ranks))
}
