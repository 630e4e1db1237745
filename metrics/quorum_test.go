package metrics_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// TestQuorumUpFraction: the fraction counts exactly the fault-window time
// during which a quorum was up and connected.
func TestQuorumUpFraction(t *testing.T) {
	cases := []struct {
		name     string
		schedule string
		want     float64
	}{
		{"no faults", "", 1},
		{"one of three down", "10s crash etcd-2 for 20s", 1},
		{"two of three down for 30 of 100 s", "30s crash etcd-1,etcd-2 for 30s", 0.7},
		{"down from time 0", "0s crash etcd-1,etcd-3 for 10s", 0.9},
		{"staggered", "10s crash etcd-1 for 20s\n20s crash etcd-2 for 20s", 0.9},
		{"isolated majority", "50s partition etcd-1|etcd-2|etcd-3 for 25s", 0.75},
		{"paused member and a crashed one", "40s pause etcd-3 for 10s\n40s crash etcd-1 for 5s", 0.95},
		{"down past the fault window counts to its end", "90s crash etcd-1,etcd-2 for 25s", 0.9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := sim.ParseSchedule(c.name, c.schedule)
			require.NoError(t, err)
			if s == nil {
				s = sim.Schedule{}
			}
			// 120 s with a 20 s settle window: the fault window is 100 s.
			res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-chaos", Members: 3, Seed: 1, Schedule: s, Duration: 120 * time.Second})
			require.NoError(t, err)
			require.InDelta(t, c.want, res.Metrics["quorum_up_fraction"], 1e-9)
		})
	}
}

// TestQuorumUpFractionFollowsMembership: in etcd-migrate-under-api every
// member moves to a fresh host and the old ones are powered off once
// removed; the quorum, of the voters of each configuration, is up
// throughout.
func TestQuorumUpFractionFollowsMembership(t *testing.T) {
	res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-migrate-under-api", Members: 3, Seed: 1})
	require.NoError(t, err)
	require.InDelta(t, 1, res.Metrics["quorum_up_fraction"], 1e-9)
}
