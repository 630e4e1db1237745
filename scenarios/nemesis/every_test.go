package nemesis

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestMerge: the faults of several schedules in time order, those at the
// same time in the order given.
func TestMerge(t *testing.T) {
	a := sim.Schedule{{At: time.Second, Kind: sim.FaultCrash}, {At: 3 * time.Second, Kind: sim.FaultPause}}
	b := sim.Schedule{{At: time.Second, Kind: sim.FaultIsolate}, {At: 2 * time.Second, Kind: sim.FaultFlaky}}
	var kinds []sim.FaultKind
	for _, f := range Merge(a, b) {
		kinds = append(kinds, f.Kind)
	}
	require.Equal(t, []sim.FaultKind{sim.FaultCrash, sim.FaultIsolate, sim.FaultFlaky, sim.FaultPause}, kinds)
	require.Nil(t, Merge(nil, sim.Schedule{}))
}

// TestPickMember: a member and every other one, in a slice of their own.
func TestPickMember(t *testing.T) {
	c := &Cluster{Members: []string{"etcd-1", "etcd-2", "etcd-3"}}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		m, others := PickMember(c, rng)
		require.Len(t, others, 2)
		require.NotContains(t, others, m)
		require.Contains(t, c.Members, m)
		others[0] = "changed"
		require.NotContains(t, c.Members, "changed")
	}
	m, others := PickMember(&Cluster{Members: []string{"etcd-1"}}, rng)
	require.Equal(t, "etcd-1", m)
	require.Empty(t, others)
}

// TestDrawFaults: faults start at a draw of start, last a draw of dur and
// follow each other a draw of gap apart, and all end by the end.
func TestDrawFaults(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	end := 5 * time.Minute
	s := drawFaults(rng, span{10 * time.Second, 5 * time.Second}, span{time.Second, 9 * time.Second}, span{2 * time.Second, 3 * time.Second}, end, 100,
		func(f *sim.Fault, roll int) { f.Kind = sim.FaultCrash })
	require.NotEmpty(t, s)
	require.GreaterOrEqual(t, s[0].At, 10*time.Second)
	require.Less(t, s[0].At, 15*time.Second)
	for i, f := range s {
		require.Equal(t, sim.FaultCrash, f.Kind)
		require.GreaterOrEqual(t, f.For, time.Second)
		require.Less(t, f.For, 10*time.Second)
		require.LessOrEqual(t, f.At+f.For, end)
		if i > 0 {
			gap := f.At - s[i-1].At
			require.True(t, gap >= 2*time.Second && gap < 5*time.Second, "gap %v", gap)
		}
	}
}
