package etcd

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/sim"
)

// TestSlowDiskFollowerServesLinearizableReads: a follower whose fsyncs take
// a second applies late (every Ready that moves its commit index waits for
// its fsync), while the leader and the other follower commit without it.
// A linearizable read through the slow follower waits until it has applied
// the read index, and returns the latest write; with local reads the same
// read returns the stale value, which shows the lag is real.
func TestSlowDiskFollowerServesLinearizableReads(t *testing.T) {
	for _, local := range []bool{false, true} {
		t.Run(fmt.Sprintf("LocalReads=%v", local), func(t *testing.T) {
			cl := newCluster(t, 8, 3, func(c *Config) { c.Ablations = ablation.When(local, ablation.LocalReads) }, sim.DiskSpec{})
			lead := cl.waitLeader(5 * time.Second)
			slow := (lead + 1) % 3
			cSlow, cFast := cl.soloAndRest(slow, "c-slow", "c-fast")

			cl.w.Inject(sim.Fault{Kind: sim.FaultSlowDisk, Targets: [][]string{{cl.members[slow].Name()}}, Fsync: time.Second})
			start := cl.w.Now()
			_, err := cl.put(cFast, "k", "new")
			require.NoError(t, err)
			require.Less(t, cl.w.Now().Sub(start), 100*time.Millisecond, "the quorum commits without the slow member")

			start = cl.w.Now()
			g, err := cl.get(cSlow, "k", GetOptions{})
			require.NoError(t, err)
			v, _ := value(g)
			if local {
				require.Equal(t, "old", v, "the slow follower has not applied the write yet")
				return
			}
			require.Equal(t, "new", v, "a linearizable read returns the latest write")
			require.Greater(t, cl.w.Now().Sub(start), 500*time.Millisecond, "it waited for the slow apply")
		})
	}
}
