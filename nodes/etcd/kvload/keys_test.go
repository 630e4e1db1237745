package kvload

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeyspaceGroups: groups are consecutive in string order, and a
// group's range holds its keys and no other.
func TestKeyspaceGroups(t *testing.T) {
	for _, n := range []int{1, 3, 10, 12, 25} {
		ks := newKeyspace(n)
		seen := 0
		for g, grp := range ks.groups {
			require.LessOrEqual(t, len(grp), GroupSize)
			key, end := ks.groupRange(g)
			var in []string
			for _, k := range ks.keys {
				if k >= key && k < end {
					in = append(in, k)
				}
			}
			require.ElementsMatch(t, grp, in, "n=%d group %d [%s, %s)", n, g, key, end)
			seen += len(grp)
		}
		require.Equal(t, n, seen)
		for i, k := range ks.keys {
			require.Contains(t, ks.groups[ks.group[i]], k)
		}
	}
}
