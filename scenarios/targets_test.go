package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// TestTargetNames: every documented role name resolves in a world of its
// layer (a schedule targeting it is accepted), and a name no resolver
// knows is refused.
func TestTargetNames(t *testing.T) {
	world := map[string]string{"etcd": "etcd-chaos", "api": "api-chaos", "stack": "stack-chaos"}
	for _, target := range scenarios.TargetNames() {
		s := sim.Schedule{{At: 20 * time.Second, Kind: sim.FaultPause, Targets: [][]string{{target.Name}}, For: time.Second}}
		_, err := scenarios.Prepare(scenarios.Options{Scenario: world[target.Layer], Members: 3, Seed: 1, Schedule: s})
		require.NoError(t, err, "%s in %s", target.Name, world[target.Layer])
	}
	s := sim.Schedule{{At: 20 * time.Second, Kind: sim.FaultPause, Targets: [][]string{{"etcd-boss"}}, For: time.Second}}
	_, err := scenarios.Prepare(scenarios.Options{Scenario: "etcd-chaos", Members: 3, Seed: 1, Schedule: s})
	require.Error(t, err)
}
