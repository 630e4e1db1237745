package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestFaultDocs: every kind is documented, and its example parses, is of
// that kind, and prints back to itself.
func TestFaultDocs(t *testing.T) {
	docs := sim.DescribeFaultKinds()
	require.Len(t, docs, len(sim.FaultKinds))
	for _, d := range docs {
		require.NotEmpty(t, d.Does, d.Kind)
		s, err := sim.ParseSchedule("example", d.Example)
		require.NoError(t, err, d.Kind)
		require.Len(t, s, 1)
		require.Equal(t, d.Kind, s[0].Kind)
		require.Equal(t, d.Example, s[0].String())
		for _, p := range d.Params {
			require.Contains(t, d.Example, p.Key+"=", "%s: the example shows %s", d.Kind, p.Key)
		}
	}
}
