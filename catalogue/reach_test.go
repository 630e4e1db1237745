package catalogue_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// layers, lowest first: a world of one layer builds those before it.
var layers = []string{"etcd", "api", "stack"}

// TestAblationLayers: every ablation declares the layer of its mechanism,
// its own scenario builds that layer, and a scenario of a lower layer is
// refused, naming a scenario that reaches it.
func TestAblationLayers(t *testing.T) {
	lowest := map[string]string{} // layer -> a catalogue scenario of exactly that layer
	for _, s := range scenarios.Catalogue() {
		if _, ok := lowest[s.Layer()]; !ok {
			lowest[s.Layer()] = s.Name
		}
	}
	for _, a := range scenarios.Ablations() {
		rank := slices.Index(layers, a.Layer)
		require.GreaterOrEqual(t, rank, 0, "%s declares layer %q", a.Name, a.Layer)
		spec, err := scenarios.Lookup(a.Scenario)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, slices.Index(layers, spec.Layer()), rank, "%s: its scenario %s does not build the %s layer", a.Name, a.Scenario, a.Layer)
		for _, below := range layers[:rank] {
			_, err := scenarios.Prepare(scenarios.Options{Scenario: lowest[below], Members: 3, Seed: 1, Ablations: []string{a.Name}})
			assert.ErrorContains(t, err, "removes a mechanism of the "+a.Layer+" layer", "%s on %s", a.Name, lowest[below])
			assert.ErrorContains(t, err, "such as "+a.Scenario)
		}
	}
}

// TestMinMembers: a scenario runs with the fewest members it declares it
// supports (seed 1, every check passing), and refuses one fewer, saying
// why. The deep catalogue runs every scenario; the default run, those that
// declare a minimum.
func TestMinMembers(t *testing.T) {
	for _, spec := range scenarios.Catalogue() {
		lo := max(spec.MinMembers, 1)
		if lo == 1 && !*deepFlag {
			continue
		}
		t.Run(spec.Name, func(t *testing.T) {
			t.Parallel()
			res := checkRun(t, scenarios.Options{Scenario: spec.Name, Members: lo, Seed: 1})
			assert.True(t, res.OK)
			if lo > 1 {
				_, err := scenarios.Prepare(scenarios.Options{Scenario: spec.Name, Members: lo - 1, Seed: 1})
				assert.ErrorContains(t, err, "supports")
				assert.NotEmpty(t, spec.MinMembersWhy, "a minimum says why")
			}
		})
	}
}
