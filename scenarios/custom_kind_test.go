package scenarios_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/scenarios"
)

// customWidgets is the custom kind the API workload writes in these tests:
// namespaced, with the status subresource, as most operators' kinds.
var customWidgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets",
	Namespaced: true, StatusSubresource: true}

// customVariant is the named API scenario with its counter writers and
// CRUD clients writing Widgets instead of Leases (APITopology.Custom).
func customVariant(t *testing.T, name string) scenarios.Spec {
	spec, err := scenarios.Lookup(name)
	require.NoError(t, err)
	top := *spec.API
	top.Custom, top.CustomCRUD = &customWidgets, 0 // every writer on Widgets
	spec.API = &top
	spec.Name = name + "-custom"
	return spec
}

// runCustom runs the variant at seed with 3 members and the ablations.
func runCustom(t *testing.T, spec scenarios.Spec, seed uint64, ablations ...string) (scenarios.Result, string) {
	var trace bytes.Buffer
	p, err := scenarios.PrepareSpec(spec, scenarios.Options{Scenario: spec.Name, Members: 3, Seed: seed, Ablations: ablations, Trace: &trace})
	require.NoError(t, err)
	res, err := p.Run()
	require.NoError(t, err)
	return res, trace.String()
}

// customSeeds is how many seeds TestCustomKindUnderAPIChaos runs:
// KUBESIM_CUSTOM_SEEDS, default 5 (3 with -short); 50 is the acceptance
// run.
func customSeeds(t *testing.T) uint64 {
	if s := os.Getenv("KUBESIM_CUSTOM_SEEDS"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
		return n
	}
	if testing.Short() {
		return 3
	}
	return 5
}

// TestCustomKindUnderAPIChaos: with the API workload writing a custom kind,
// api-chaos's faults leave every API-layer check passing
// (api-linearizability, no-lost-updates, informer-replay, time-travel and
// the rest), and the checks did judge the custom kind: the trace holds the
// writers' calls and the informers' events on widgets.
func TestCustomKindUnderAPIChaos(t *testing.T) {
	t.Parallel()
	spec := customVariant(t, "api-chaos")
	for seed := uint64(1); seed <= customSeeds(t); seed++ {
		res, trace := runCustom(t, spec, seed)
		require.True(t, res.OK, "seed %d: %v", seed, res.Failed())
		require.Contains(t, trace, `"resource":"widgets"`, "seed %d: the custom kind is traced", seed)
		require.NotContains(t, trace, `"resource":"leases","key":"default/counter"`, "seed %d: the counter is a Widget", seed)
		names := map[string]bool{}
		for _, c := range res.Checks {
			names[c.Name] = true
		}
		for _, c := range []string{"api-linearizability", "no-lost-updates", "informer-replay", "time-travel"} {
			require.True(t, names[c], "%s ran", c)
		}
	}
}

// TestCustomKindAblationsCaught: the API ablations are still caught when
// the workload's objects are of a custom kind: a last-write-wins API server
// loses counter increments (no-lost-updates, on api-conflict-storm), and a
// watch cache that serves a too-old resume instead of 410 Gone makes an
// informer miss events (informer-replay, on api-compaction-410). The same
// seed without the ablation passes.
func TestCustomKindAblationsCaught(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ ablation, check, scenario string }{
		{"apiserver-last-write-wins", "no-lost-updates", "api-conflict-storm"},
		{"cache-no-410", "informer-replay", "api-compaction-410"},
	} {
		t.Run(tc.ablation, func(t *testing.T) {
			spec := customVariant(t, tc.scenario)
			for seed := uint64(1); seed <= 20; seed++ {
				res, _ := runCustom(t, spec, seed, tc.ablation)
				for _, c := range res.Checks {
					if c.Name != tc.check || c.OK {
						continue
					}
					fmt.Printf("custom kind: ablation %s caught by %s on %s at seed %d: %s\n", tc.ablation, tc.check, spec.Name, seed,
						c.Detail[:min(200, len(c.Detail))])
					off, _ := runCustom(t, spec, seed)
					require.True(t, off.OK, "%s seed %d passes without %s: %v", spec.Name, seed, tc.ablation, off.Failed())
					return
				}
			}
			t.Fatalf("%s not caught by %s on %s within 20 seeds", tc.ablation, tc.check, spec.Name)
		})
	}
}
