package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// TestConfigDefaults: a zero Config takes kube-controller-manager's flag
// defaults (--node-monitor-period 5s, --node-monitor-grace-period 50s,
// --node-startup-grace-period 1m, --node-eviction-rate 0.1,
// --secondary-node-eviction-rate 0.01, --large-cluster-size-threshold 50,
// --unhealthy-zone-threshold 0.55); a field that is set keeps its value.
func TestConfigDefaults(t *testing.T) {
	def := Config{}.withDefaults()
	require.Equal(t, 5*time.Second, def.NodeMonitorPeriod)
	require.Equal(t, 50*time.Second, def.NodeMonitorGracePeriod)
	require.Equal(t, 60*time.Second, def.NodeStartupGracePeriod)
	require.Equal(t, 0.1, def.NodeEvictionRate)
	require.Equal(t, 0.01, def.SecondaryNodeEvictionRate)
	require.Equal(t, 50, def.LargeClusterSizeThreshold)
	require.Equal(t, 0.55, def.UnhealthyZoneThreshold)

	set := Config{NodeMonitorPeriod: time.Second, NodeMonitorGracePeriod: 2 * time.Second,
		NodeStartupGracePeriod: 3 * time.Second, NodeEvictionRate: 0.5, SecondaryNodeEvictionRate: 0.05,
		LargeClusterSizeThreshold: 7, UnhealthyZoneThreshold: 0.3}
	require.Equal(t, set, set.withDefaults())
}

// TestSetLimiterInZone: the tainting rate a zone gets for its state, as
// kubernetes/kubernetes pkg/controller/nodelifecycle/node_lifecycle_controller.go
// (setLimiterInZone, with HealthyQPSFunc for Normal and FullDisruption and
// ReducedQPSFunc for PartialDisruption): the eviction rate (one node every
// 10 s), or in a partial disruption the secondary rate (one node every
// 100 s) when the zone has more than --large-cluster-size-threshold (50)
// nodes, and none at all when it has 50 or fewer. The burst is 1.
func TestSetLimiterInZone(t *testing.T) {
	cases := []struct {
		name  string
		state zoneState
		size  int
		// tainted is how many queued nodes have been tainted after 0 s,
		// 10 s, 99 s and 101 s.
		tainted []int
	}{
		{"normal", stateNormal, 3, []int{1, 2, 3, 3}},
		{"full disruption", stateFullDisruption, 3, []int{1, 2, 3, 3}},
		{"partial disruption, 51 nodes", statePartialDisruption, 51, []int{1, 1, 1, 2}},
		{"partial disruption, 50 nodes", statePartialDisruption, 50, []int{0, 0, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := sim.NewWorld(1)
			h := w.MustAddHost(sim.HostSpec{Name: "kcm", Boot: func(*sim.Host) {}})
			c := &Controller{cfg: Config{}.withDefaults(), h: h, tainters: map[string]*rateLimitedQueue{}}
			start := c.now()
			q := c.tainter("zone")
			for _, n := range []string{"a", "b", "c", "d", "e"} {
				q.add(n, start)
			}
			c.setLimiterInZone("zone", tc.size, tc.state)
			var got []int
			tainted := 0
			for _, at := range []time.Duration{0, 10 * time.Second, 99 * time.Second, 101 * time.Second} {
				now := func() model.Time { return start.Add(at) }
				q.try(now, func(_ string, done func(bool, time.Duration)) { tainted++; done(true, 0) }, func() {})
				got = append(got, tainted)
			}
			require.Equal(t, tc.tainted, got)
		})
	}
}
