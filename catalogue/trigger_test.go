package catalogue_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// momentRuns are catalogue scenarios that reach each named moment, and
// when to arm a trigger aimed at it (rolling-update-traffic's rollout at
// 70 s, not the Deployment's creation at 15 s).
var momentRuns = []struct {
	moment, scenario string
	arm              time.Duration
}{
	{"leader-elected", "etcd-leader-crash", 0},
	{"learner-present", "etcd-scale-out-in", 0},
	{"snapshot-sent", "etcd-backup", 0},
	{"snapshot-restored", "etcd-amnesia", 0},
	{"watch-cache-reinit", "api-etcd-compaction", 0},
	{"rollout-started", "rolling-update-traffic", 65 * time.Second},
	{"endpointslice-update", "rolling-update-traffic", 65 * time.Second},
}

// TestMomentsFire: a fault aimed at each named moment, in a catalogue
// scenario of its layer that has the moment, fires within its window after
// each of the first three events that mark it, and no more. The fault is a
// harmless flaky link on every host, which the trace always shows, added
// to the scenario's own faults.
func TestMomentsFire(t *testing.T) {
	t.Parallel()
	require.Len(t, momentRuns, len(nemesis.Moments()), "every moment is reached")
	for _, r := range momentRuns {
		t.Run(r.moment, func(t *testing.T) {
			m, err := nemesis.LookupMoment(r.moment)
			require.NoError(t, err)
			on := m.Trigger()
			probe := sim.Fault{At: r.arm, Kind: sim.FaultFlaky, Targets: [][]string{{"*"}}, For: 10 * time.Millisecond, Delay: time.Millisecond}
			opts := scenarios.Options{Scenario: r.scenario, Members: 3, Seed: 1}
			own, err := scenarios.Prepare(opts) // the scenario's faults, which may make the moment
			require.NoError(t, err)
			require.False(t, slices.ContainsFunc(own.Schedule, func(f sim.Fault) bool { return f.Kind == sim.FaultFlaky }), "the probe is the only flaky fault")
			opts.Schedule = append(slices.Clone(own.Schedule), m.Aim(probe, 3))
			p, err := scenarios.Prepare(opts)
			require.NoError(t, err)
			w := p.World
			var hosts []sim.HostID
			if len(on.Hosts) > 0 {
				hosts, err = w.Resolve(on.Hosts[0])
				require.NoError(t, err)
			}
			var marks, fired []sim.Time
			was := map[sim.HostID]bool{} // edge: whether the host's last event matched
			w.Subscribe(func(e *sim.Event) {
				if e.Kind == sim.KindFault && e.Name == string(sim.FaultFlaky) {
					if len(fired) == 0 || fired[len(fired)-1] != e.At {
						fired = append(fired, e.At)
					}
					return
				}
				if sim.EventKindName(e) != on.Event || (hosts != nil && !slices.Contains(hosts, e.Host)) {
					return
				}
				words := strings.Fields(string(sim.AppendEventFields(nil, w, e)))
				ok := true
				for _, f := range on.Match {
					ok = ok && slices.Contains(words, f.Key+"="+f.Value)
				}
				if on.Edge {
					ok, was[e.Host] = ok && !was[e.Host], ok
				}
				if ok && e.At >= sim.Time(r.arm) {
					marks = append(marks, e.At)
				}
			})
			_, err = p.Run()
			require.NoError(t, err)
			require.NotEmpty(t, marks, "%s reaches %s", r.scenario, r.moment)
			first := marks[:min(3, len(marks))]
			require.Len(t, fired, len(first), "one firing for each of the first %d marks %v", len(first), first)
			for _, f := range fired {
				assert.True(t, slices.ContainsFunc(first, func(e sim.Time) bool { return e <= f && f <= e.Add(on.Within) }),
					"the fault at %v lands within %v after one of the marks %v", f, on.Within, first)
			}
		})
	}
}

// TestTriggeredRunDeterministic: a scenario run with a triggered fault
// (the leader-elected moment's example) gives the same trace twice, and
// the fault changes the run.
func TestTriggeredRunDeterministic(t *testing.T) {
	t.Parallel()
	m, err := nemesis.LookupMoment("leader-elected")
	require.NoError(t, err)
	f, err := sim.ParseFault(m.Example)
	require.NoError(t, err)
	opts := scenarios.Options{Scenario: "etcd-leader-crash", Members: 3, Seed: 3, Schedule: sim.Schedule{f}}
	a, err := scenarios.Run(opts)
	require.NoError(t, err)
	b, err := scenarios.Run(opts)
	require.NoError(t, err)
	assert.Equal(t, a.TraceHash, b.TraceHash)
	assert.Equal(t, a.Events, b.Events)
	opts.Schedule = sim.Schedule{}
	none, err := scenarios.Run(opts)
	require.NoError(t, err)
	assert.NotEqual(t, a.TraceHash, none.TraceHash, "the leader crashed")
}

// TestChaosAimsFaults: the chaos scenarios draw faults aimed at their
// layer's moments (nemesis's "aimed-LAYER" kinds), and in one of a few
// seeds' runs of each, one of them fires: a fault lands at a time no plain
// fault of the schedule starts or ends at, because the trace showed its
// moment. (An aimed fault whose moment does not come in its span fires
// nothing, so one seed alone need not.)
func TestChaosAimsFaults(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"etcd-chaos", "api-chaos", "stack-chaos"} {
		t.Run(name, func(t *testing.T) {
			aimed, fired := 0, 0
			for seed := uint64(1); seed <= 3 && fired == 0; seed++ {
				p, err := scenarios.Prepare(scenarios.Options{Scenario: name, Members: 3, Seed: seed})
				require.NoError(t, err)
				plain := map[sim.Time]bool{}
				for _, f := range p.Schedule {
					if f.On != nil {
						aimed++
						continue
					}
					plain[sim.Time(f.At)], plain[sim.Time(f.At+f.For)] = true, true
				}
				p.World.Subscribe(func(e *sim.Event) {
					if e.Kind == sim.KindFault && !plain[e.At] {
						fired++
					}
				})
				_, err = p.Run()
				require.NoError(t, err)
			}
			require.Positive(t, aimed, "%s draws aimed faults", name)
			assert.Positive(t, fired, "%s: an aimed fault fires in seeds 1 to 3", name)
		})
	}
}
