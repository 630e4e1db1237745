package catalogue_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// ablationSeeds is how many seeds an ablation gets to be caught in.
const ablationSeeds = 50

// TestAblations proves each check can fail: with its ablation on, the
// ablation's target scenario must fail the named check within 50 seeds,
// and the checks it names in AlsoCaughtBy in that same run; and the same
// run without the ablation passes every check, so the catch is the
// ablation's doing. It prints how many seeds that took.
func TestAblations(t *testing.T) {
	t.Parallel() // its subtests run beside the other long tests'
	for _, a := range scenarios.Ablations() {
		if a.Check == "" {
			continue // measured: TestMeasuredAblations
		}
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			spec, err := scenarios.Lookup(a.Scenario)
			require.NoError(t, err)
			members := []int{3, 5}
			if len(spec.Members) == 1 {
				members = spec.Members
			}
			for seed := uint64(1); seed <= ablationSeeds; seed++ {
				for _, members := range members {
					res, err := runAblated(a.Scenario, members, seed, a.Name)
					require.NoError(t, err)
					failed := map[string]bool{}
					for _, c := range res.Checks {
						failed[c.Name] = !c.OK
					}
					if failed[a.Check] {
						fmt.Printf("ablation %-24s caught by %-16s on %s at seed %d (%d members)\n", a.Name, a.Check, a.Scenario, seed, members)
						for _, also := range a.AlsoCaughtBy {
							require.True(t, failed[also], "%s must catch %s too, in the run %s caught it", also, a.Name, a.Check)
						}
						off, err := scenarios.Run(scenarios.Options{Scenario: a.Scenario, Members: members, Seed: seed})
						require.NoError(t, err)
						require.True(t, off.OK, "%s seed %d, %d members, passes without %s: %v", a.Scenario, seed, members, a.Name, off.Failed())
						return
					}
				}
			}
			t.Fatalf("ablation %s was not caught by %s on %s within %d seeds", a.Name, a.Check, a.Scenario, ablationSeeds)
		})
	}
}

// measuredSeeds is how many seeds a measured ablation is compared over.
const measuredSeeds = 8

// TestMeasuredAblations: an ablation that breaks no checked property costs
// something measurable. Over the same seeds of its scenario, every metric
// it names is larger with the ablation than without (summed), and both
// sets of runs pass every check. It prints the figures behind the
// Measured table of docs/ablations.md.
func TestMeasuredAblations(t *testing.T) {
	t.Parallel() // its subtests run beside the other long tests'
	for _, a := range scenarios.Ablations() {
		if a.Check != "" {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			spec, err := scenarios.Lookup(a.Scenario)
			require.NoError(t, err)
			sums := map[bool]map[string]float64{false: {}, true: {}}
			for _, on := range []bool{false, true} {
				var abl []string
				if on {
					abl = []string{a.Name}
				}
				for seed := uint64(1); seed <= measuredSeeds; seed++ {
					res, err := scenarios.Run(scenarios.Options{Scenario: a.Scenario, Members: spec.Members[0], Seed: seed, Ablations: abl})
					require.NoError(t, err)
					require.True(t, res.OK, "%s seed %d (ablated %v): %v", a.Scenario, seed, on, res.Failed())
					for _, m := range strings.Split(a.Measure, ",") {
						v, ok := res.Metrics[m]
						require.True(t, ok, "metric %s missing", m)
						sums[on][m] += v
					}
				}
			}
			for _, m := range strings.Split(a.Measure, ",") {
				off, on := sums[false][m]/measuredSeeds, sums[true][m]/measuredSeeds
				fmt.Printf("ablation %-27s on %s: %s %.3f without, %.3f with (mean of %d seeds)\n", a.Name, a.Scenario, m, off, on, measuredSeeds)
				require.Greater(t, on, off, "%s: %s is no larger with the ablation", a.Name, m)
			}
		})
	}
}
