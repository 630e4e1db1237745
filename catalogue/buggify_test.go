package catalogue_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// TestBuggifyRunRecordsItsPoints: a run with BUGGIFY on records the
// points its seed activated and how often each fired, as its trace
// shows them (no inactive point fires); it says so in its JSON, its
// replay commands, its artifacts' name and its corpus entry, which
// replays it; the same seed twice activates and fires the same, while
// seeds differ. A run without it records none.
func TestBuggifyRunRecordsItsPoints(t *testing.T) {
	t.Parallel()
	sets := map[string]bool{}
	for seed := uint64(1); seed <= 4; seed++ {
		opts := scenarios.Options{Scenario: "etcd-chaos", Members: 3, Seed: seed, Buggify: true}
		p, err := scenarios.Prepare(opts)
		require.NoError(t, err)
		traced := map[string]int{}
		p.World.Subscribe(func(e *sim.Event) {
			if b, ok := e.Data.(*sim.BuggifyEvent); ok {
				traced[string(b.Point)]++
			}
		})
		res, err := p.Run()
		require.NoError(t, err)
		require.True(t, res.OK, "%v", res.Failed())
		require.NotNil(t, res.Buggify)
		require.Len(t, res.Buggify.Fired, len(res.Buggify.Active))
		for i, point := range res.Buggify.Active {
			_, err := sim.ParseBuggifyPoint(point)
			require.NoError(t, err)
			require.Equal(t, traced[point], res.Buggify.Fired[i], "%s", point)
		}
		for _, point := range sim.SortedKeys(traced) {
			require.Contains(t, res.Buggify.Active, point, "only active points fire")
		}
		b, err := json.Marshal(res)
		require.NoError(t, err)
		require.Contains(t, string(b), `"buggify":{"active":[`)
		require.True(t, strings.HasSuffix(scenarios.ReplayCommand(res), " --buggify"), scenarios.ReplayCommand(res))
		require.True(t, strings.HasSuffix(scenarios.GoTestCommand(res), " -buggify"), scenarios.GoTestCommand(res))
		require.Contains(t, scenarios.ArtifactName(opts), "-buggify")
		entry := scenarios.EntryFor(res, opts, "")
		require.True(t, entry.Buggify)
		back, err := entry.Options("entry")
		require.NoError(t, err)
		require.True(t, back.Buggify)
		require.True(t, strings.HasSuffix(opts.Key(), "|buggify"))

		again, err := scenarios.Run(back)
		require.NoError(t, err)
		require.Equal(t, res.TraceHash, again.TraceHash)
		require.Equal(t, res.Buggify, again.Buggify)
		sets[strings.Join(res.Buggify.Active, ",")] = true

		off, err := scenarios.Run(scenarios.Options{Scenario: "etcd-chaos", Members: 3, Seed: seed})
		require.NoError(t, err)
		require.Nil(t, off.Buggify)
		require.NotContains(t, scenarios.ReplayCommand(off), "buggify")
		if slices.ContainsFunc(res.Buggify.Fired, func(n int) bool { return n > 0 }) {
			require.NotEqual(t, off.TraceHash, res.TraceHash, "a point that fired changed the run")
		}
	}
	require.Greater(t, len(sets), 1, "seeds activate different points")
}

// TestBuggifyReachesEveryPoint: each point, active alone in a chaos
// scenario of the layer it lives in, fires, and the run passes every
// check.
func TestBuggifyReachesEveryPoint(t *testing.T) {
	t.Parallel()
	for _, info := range sim.BuggifyPoints() {
		t.Run(string(info.Point), func(t *testing.T) {
			scenario := "api-chaos"
			if strings.HasPrefix(info.Where, "nodes/etcd") {
				scenario = "etcd-chaos"
			}
			p, err := scenarios.Prepare(scenarios.Options{Scenario: scenario, Members: 3, Seed: 1})
			require.NoError(t, err)
			require.NoError(t, p.World.EnableBuggify(info.Point))
			res, err := p.Run()
			require.NoError(t, err)
			require.True(t, res.OK, "%v", res.Failed())
			require.Equal(t, []string{string(info.Point)}, res.Buggify.Active)
			require.Positive(t, res.Buggify.Fired[0], "%s fires on %s", info.Point, scenario)
		})
	}
}

// buggifyScenarios are the runs BUGGIFY is meant for: each layer's chaos
// and swarm scenarios.
var buggifyScenarios = []string{"etcd-chaos", "etcd-swarm", "api-chaos", "api-swarm", "stack-chaos", "stack-swarm"}

// TestBuggifyChaos: the chaos and swarm scenarios of every layer pass
// every check with BUGGIFY on, over 2 seeds with 3 members (20 seeds with
// 3 and 5 members in the deep catalogue): the rare paths its points take
// are legal, and the system survives them. A failure prints the command
// that replays it.
func TestBuggifyChaos(t *testing.T) {
	t.Parallel()
	seeds, members := uint64(2), []int{3}
	if *deepFlag {
		seeds, members = 20, []int{3, 5}
	}
	for _, name := range buggifyScenarios {
		t.Run(name, func(t *testing.T) {
			fired := 0
			for _, m := range members {
				for seed := uint64(1); seed <= seeds; seed++ {
					res := checkRun(t, scenarios.Options{Scenario: name, Members: m, Seed: seed, Buggify: true})
					for _, n := range res.Buggify.Fired {
						fired += n
					}
				}
			}
			require.Positive(t, fired, fmt.Sprintf("BUGGIFY fired in %s", name))
		})
	}
}

// TestBuggifyWidensReach: BUGGIFY reaches what faults alone rarely do.
// Two ablations are caught at a seed with BUGGIFY on and missed at the
// same seed without it, while the correct system passes every check there
// with BUGGIFY on (the catch is the ablation's): etcd-local-reads, whose
// stale local reads need a member behind (a slow peer stream holds a
// follower back), and update-trusts-stale-cache, whose wrong 409 needs a
// watch cache behind etcd. Under -deep, over 15 seeds with 3 and 5
// members, BUGGIFY catches each more often (measured once over every
// ablation: 2 to 15 of 30 runs and 14 to 30 of 30; docs/buggify.md).
func TestBuggifyWidensReach(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ablation, check, scenario string
		members                   int
		seed                      uint64
	}{
		{"etcd-local-reads", "linearizability", "etcd-leader-partition", 3, 1},
		{"update-trusts-stale-cache", "api-linearizability", "etcd-leader-partition-under-api", 3, 2},
	} {
		t.Run(tc.ablation, func(t *testing.T) {
			caught := func(members int, seed uint64, buggify bool) bool {
				res, err := scenarios.Run(scenarios.Options{Scenario: tc.scenario, Members: members, Seed: seed,
					Ablations: []string{tc.ablation}, Buggify: buggify})
				require.NoError(t, err)
				return slices.ContainsFunc(res.Failed(), func(c checks.Result) bool { return c.Name == tc.check })
			}
			require.False(t, caught(tc.members, tc.seed, false), "missed without BUGGIFY")
			require.True(t, caught(tc.members, tc.seed, true), "caught with BUGGIFY")
			checkRun(t, scenarios.Options{Scenario: tc.scenario, Members: tc.members, Seed: tc.seed, Buggify: true})
			if !*deepFlag {
				return
			}
			plain, bug := 0, 0
			for seed := uint64(1); seed <= 15; seed++ {
				for _, m := range []int{3, 5} {
					if caught(m, seed, false) {
						plain++
					}
					if caught(m, seed, true) {
						bug++
					}
				}
			}
			t.Logf("%s on %s: caught in %d of 30 runs without BUGGIFY, %d with", tc.ablation, tc.scenario, plain, bug)
			require.Greater(t, bug, plain)
		})
	}
}
