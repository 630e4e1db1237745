package catalogue_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
)

// TestCheckRegistry: every check a catalogue scenario runs has an entry
// in checks.Registry (the documentation's list), every entry is run by
// some scenario, and every ablation names a registered check or measures
// something.
func TestCheckRegistry(t *testing.T) {
	run := map[string]bool{}
	for _, spec := range scenarios.Catalogue() {
		p, err := scenarios.Prepare(scenarios.Options{Scenario: spec.Name, Members: spec.Members[0], Seed: 1})
		require.NoError(t, err)
		for _, c := range p.Checks {
			_, ok := checks.LookupInfo(c.Name())
			require.True(t, ok, "%s runs check %q, which checks.Registry does not list", spec.Name, c.Name())
			run[c.Name()] = true
		}
	}
	for _, info := range checks.Registry() {
		require.True(t, run[info.Name], "checks.Registry lists %q, which no catalogue scenario runs", info.Name)
		require.Contains(t, []string{"etcd", "api", "stack"}, info.Layer, info.Name)
		require.Equal(t, len(info.In) == 0, info.New == nil, "%s: a check every scenario of a layer runs has a constructor", info.Name)
	}
	for _, a := range scenarios.Ablations() {
		if a.Check == "" {
			require.NotEmpty(t, a.Measure, a.Name)
			continue
		}
		_, ok := checks.LookupInfo(a.Check)
		require.True(t, ok, "ablation %s names check %q, which checks.Registry does not list", a.Name, a.Check)
	}
}
