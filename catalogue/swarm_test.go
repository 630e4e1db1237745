package catalogue_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// callKind names the kind of a KV call as kvload.OpKinds does.
func callKind(c *etcdtrace.Call) string {
	switch {
	case c.Kind == etcdtrace.OpGet && c.Rev != 0:
		return "historical"
	case c.Kind == etcdtrace.OpGet && c.End != "":
		return "range"
	case c.Kind == etcdtrace.OpGet:
		return "get"
	case c.Kind == etcdtrace.OpCAS:
		return "cas"
	}
	return string(c.Kind)
}

// TestSwarmRunRecordsItsKinds: an etcd-swarm run records the kinds of
// fault and operation it switched on in its result (and its JSON); its
// clients run only those operations; the same seed twice switches on the
// same and gives the same trace hash, while seeds differ. A run that is
// not a swarm records none.
func TestSwarmRunRecordsItsKinds(t *testing.T) {
	t.Parallel()
	subsets := map[string]bool{}
	for seed := uint64(1); seed <= 4; seed++ {
		opts := scenarios.Options{Scenario: "etcd-swarm", Members: 3, Seed: seed}
		p, err := scenarios.Prepare(opts)
		require.NoError(t, err)
		var kinds []string
		p.World.Subscribe(func(e *sim.Event) {
			// The watchers' lists are theirs, not the clients' mix.
			if c, ok := e.Data.(*etcdtrace.Call); ok && c.Kind != etcdtrace.OpList && !slices.Contains(kinds, callKind(c)) {
				kinds = append(kinds, callKind(c))
			}
		})
		res, err := p.Run()
		require.NoError(t, err)
		require.True(t, res.OK, "%v", res.Failed())
		require.NotNil(t, res.Swarm)
		require.NotEmpty(t, res.Swarm.Faults)
		require.NotEmpty(t, res.Swarm.Ops)
		for _, k := range res.Swarm.Faults {
			require.Contains(t, nemesis.EtcdChaos.Kinds(), k)
		}
		for _, k := range kinds {
			require.Contains(t, res.Swarm.Ops, k, "seed %d", seed)
		}
		b, err := json.Marshal(res)
		require.NoError(t, err)
		require.Contains(t, string(b), `"swarm":{"faults":[`)
		again, err := scenarios.Run(opts)
		require.NoError(t, err)
		require.Equal(t, res.TraceHash, again.TraceHash)
		require.Equal(t, res.Swarm, again.Swarm)
		subsets[res.Swarm.String()] = true
	}
	require.Greater(t, len(subsets), 1, "seeds switch on different kinds")

	res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-chaos", Members: 3, Seed: 1})
	require.NoError(t, err)
	require.Nil(t, res.Swarm)
	p, err := nemesis.ParseProfile("mixed:swarm=true")
	require.NoError(t, err)
	res, err = scenarios.Run(scenarios.Options{Scenario: "etcd-profile", Members: 3, Seed: 1, Profile: &p})
	require.NoError(t, err)
	require.NotNil(t, res.Swarm)
	require.NotEmpty(t, res.Swarm.Faults)
	require.Empty(t, res.Swarm.Ops, "etcd-profile's workload runs every operation")
}
