package catalogue_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// TestFigure8Steers: without the ablation, the raft-figure-8 nemesis really
// walks the cluster through Figure 8's states (C cut off one way in (b), M
// slowed and then isolated in (c), C restarted in (d)), every check passes,
// and every member ends up running.
func TestFigure8Steers(t *testing.T) {
	t.Parallel()
	for _, members := range []int{3, 4, 5} {
		for seed := uint64(1); seed <= 3; seed++ {
			p, err := scenarios.Prepare(scenarios.Options{Scenario: "raft-figure-8", Members: members, Seed: seed})
			require.NoError(t, err)
			faults := map[string]int{}
			p.World.Subscribe(func(e *sim.Event) {
				if e.Kind == sim.KindFault {
					faults[e.Name]++
				}
			})
			res, err := p.Run()
			require.NoError(t, err)
			require.True(t, res.OK, "members=%d seed=%d: %v", members, seed, res.Failed())
			for _, f := range []string{"oneway", "flaky", "crash", "restart"} {
				require.Positive(t, faults[f], "members=%d seed=%d: the nemesis never injected %s", members, seed, f)
			}
			for _, m := range p.Cluster.Members {
				h, _ := p.World.HostByName(m)
				require.True(t, h.Up(), "members=%d seed=%d: %s is down at the end", members, seed, m)
			}
		}
	}
}

// TestFigure8NeedsThreeMembers: with fewer members the nemesis does nothing.
func TestFigure8NeedsThreeMembers(t *testing.T) {
	for _, members := range []int{1, 2} {
		p, err := scenarios.Prepare(scenarios.Options{Scenario: "raft-figure-8", Members: members, Seed: 1})
		require.NoError(t, err)
		faults := 0
		p.World.Subscribe(func(e *sim.Event) {
			if e.Kind == sim.KindFault {
				faults++
			}
		})
		res, err := p.Run()
		require.NoError(t, err)
		require.True(t, res.OK, "%v", res.Failed())
		require.Zero(t, faults)
	}
}
