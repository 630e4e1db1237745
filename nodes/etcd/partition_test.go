package etcd

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/sim"
)

// partition cuts the given host groups apart; hosts in no group keep their
// links.
func (cl *cluster) partition(groups ...[]*sim.Host) [][2]sim.HostID {
	var ids [][]sim.HostID
	for _, g := range groups {
		var gi []sim.HostID
		for _, h := range g {
			gi = append(gi, h.ID())
		}
		ids = append(ids, gi)
	}
	return cl.w.Network().Partition(ids)
}

func TestMinorityPartition(t *testing.T) {
	cl := newCluster(t, 5, 3, nil, sim.DiskSpec{})
	lead := cl.waitLeader(5 * time.Second)
	minority := (lead + 1) % 3
	var majority []int
	for i := range cl.members {
		if i != minority {
			majority = append(majority, i)
		}
	}
	cMin := cl.addClient("c-min", minority)
	cMaj := cl.addClient("c-maj", majority...)
	minHost := cl.host("c-min")
	majHost := cl.host("c-maj")
	cl.partition(
		[]*sim.Host{cl.members[minority], minHost},
		[]*sim.Host{cl.members[majority[0]], cl.members[majority[1]], majHost},
	)
	cl.w.RunFor(3 * time.Second) // the minority loses its leader
	for i := 0; i < 3; i++ {
		_, err := cl.put(cMin, "m", fmt.Sprint(i))
		require.Error(t, err, "the minority must not accept writes")
		_, err = cl.put(cMaj, "M", fmt.Sprint(i))
		require.NoError(t, err, "the majority keeps writing")
	}
	_, err := cl.put(cMin, "m", "x")
	require.ErrorIs(t, err, ErrNoLeader, "a member without a leader refuses at once")
	require.True(t, DefinitelyNotApplied(err))

	// A watch on it is refused with the same error, so that the watcher
	// knows to move on (kube-apiserver's watches require a leader).
	var watchErr error
	cl.w.After(0, "watch", func() {
		(*cMin).Watch(WatchRequest{Key: "m"}, func(r WatchResponse) {
			if r.Err != nil && watchErr == nil {
				watchErr = r.Err
			}
		})
	})
	cl.w.RunFor(time.Second)
	require.ErrorIs(t, watchErr, ErrNoLeader)
}

func TestLinearizableReadOnPartitionedOldLeader(t *testing.T) {
	for _, local := range []bool{false, true} {
		t.Run(fmt.Sprintf("LocalReads=%v", local), func(t *testing.T) {
			cl := newCluster(t, 6, 3, func(c *Config) { c.Ablations = ablation.When(local, ablation.LocalReads) }, sim.DiskSpec{})
			lead := cl.waitLeader(5 * time.Second)
			cOld, cNew := cl.soloAndRest(lead, "c-old", "c-new")
			others := []*sim.Host{cl.host("c-new")}
			for i, m := range cl.members {
				if i != lead {
					others = append(others, m)
				}
			}
			cl.partition([]*sim.Host{cl.members[lead], cl.host("c-old")}, others)
			// Right after the cut the old leader still believes it leads; a
			// linearizable read cannot confirm that and must not answer.
			g, err := cl.get(cOld, "k", GetOptions{})
			if !local {
				require.ErrorIs(t, err, ErrDeadlineExceeded, "the read waits for a quorum that never answers")
			}
			cl.w.RunFor(3 * time.Second)
			_, err = cl.put(cNew, "k", "new")
			require.NoError(t, err)

			g, err = cl.get(cOld, "k", GetOptions{})
			if local {
				require.NoError(t, err)
				v, _ := value(g)
				require.Equal(t, "old", v, "local reads serve the stale value")
				return
			}
			require.Error(t, err, "a linearizable read must not return stale data")
			require.True(t, IsUnknownOutcome(err) || DefinitelyNotApplied(err))
		})
	}
}
