package scenarios_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// failAfter is a user's own check: it fails on the first fault event at or
// after its time, so that a spec built with it fails on purpose.
type failAfter struct {
	at  sim.Time
	rec checks.Recorder
}

func (c *failAfter) Name() string { return "user-no-late-faults" }
func (c *failAfter) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault && e.At >= c.at {
		c.rec.Add(e, "fault %s after %v", e.Name, c.at)
	}
}
func (c *failAfter) Finish() checks.Result { return c.rec.Result(c.Name(), "no late faults") }

// userSpec is a small spec of a user's own: the etcd layer with one
// crash, judged also by a check of its own (failing when failing is set).
func userSpec(name string, failing bool) scenarios.Spec {
	return scenarios.Spec{
		Name:        name,
		Description: "a user's spec: one member crashes for 5 s",
		Duration:    30 * time.Second,
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			return sim.Schedule{{At: 5 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{c.Members[0]}}, For: 5 * time.Second}}
		},
		Build: func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
			if !failing {
				return nil, nil
			}
			return []checks.Check{&failAfter{at: sim.Time(time.Second)}}, nil
		},
	}
}

// TestRegister: a registered spec is found by name everywhere a scenario
// is (Lookup, Run, WriteArtifacts), gets its layer's defaults, and its
// failure report says that no kubesim command replays it rather than
// printing one that fails with "unknown scenario".
func TestRegister(t *testing.T) {
	spec := scenarios.MustRegister(userSpec("user-registered-crash", true))
	require.Equal(t, []int{3, 4, 5}, spec.Members, "the etcd layer's defaults")
	require.Equal(t, 20*time.Second, spec.Settle)

	got, err := scenarios.Lookup("user-registered-crash")
	require.NoError(t, err)
	require.Equal(t, spec.Description, got.Description)
	require.False(t, scenarios.InCatalogue("user-registered-crash"))
	require.True(t, scenarios.InCatalogue("etcd-chaos"))
	require.Contains(t, namesOf(scenarios.Registered()), "user-registered-crash")
	require.NotContains(t, namesOf(scenarios.Catalogue()), "user-registered-crash", "the catalogue (and its pinned hashes) stays kubesim's own")

	opts := scenarios.Options{Scenario: "user-registered-crash", Members: 3, Seed: 4}
	res, err := scenarios.Run(opts)
	require.NoError(t, err)
	require.False(t, res.OK)
	require.Equal(t, "user-registered-crash", res.Scenario)
	art, err := scenarios.WriteArtifacts(opts, t.TempDir())
	require.NoError(t, err)
	require.Len(t, art.Paths(), 2, "trace and timeline")
	for _, p := range art.Paths() {
		info, err := os.Stat(p)
		require.NoError(t, err)
		require.Positive(t, info.Size())
	}

	require.Empty(t, scenarios.GoTestCommand(res), "kubesim's TestChaos cannot replay a user's spec")
	report := scenarios.FailureReport(res, opts, art)
	require.Contains(t, report, "user-no-late-faults")
	require.Contains(t, report, "not a catalogue scenario")
	require.NotContains(t, report, "go test ./catalogue")
	require.Contains(t, scenarios.FailureReportWith(res, art, "go test example.com/op -run '^TestOp$' -seed 4"),
		"replay with:\n  go test example.com/op -run '^TestOp$' -seed 4\n")
}

// TestRegisterRefuses: an empty, unusable, catalogue or repeated name is
// refused with an error that names the problem, and MustRegister panics
// with it.
func TestRegisterRefuses(t *testing.T) {
	require.NoError(t, scenarios.Register(userSpec("user-once", false)))
	for _, tc := range []struct{ name, want string }{
		{"", "a spec needs a Name"},
		{"has space", `invalid name "has space"`},
		{"-flag", "must not start with '-'"},
		{"etcd-chaos", "the catalogue already has a scenario of that name"},
		{"user-once", "already registered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := scenarios.Register(userSpec(tc.name, false))
			require.ErrorContains(t, err, tc.want)
			require.PanicsWithError(t, err.Error(), func() { scenarios.MustRegister(userSpec(tc.name, false)) })
		})
	}
	require.Equal(t, 1, countOf(scenarios.Registered(), "user-once"))
}

// TestWriteArtifactsSpec: an unregistered spec's failing run writes its
// artifacts too, named after the spec.
func TestWriteArtifactsSpec(t *testing.T) {
	_, err := scenarios.WriteArtifacts(scenarios.Options{Scenario: "user-never-registered", Members: 3, Seed: 1}, t.TempDir())
	require.ErrorContains(t, err, `unknown scenario "user-never-registered"`)
	art, err := scenarios.WriteArtifactsSpec(userSpec("user-never-registered", true), scenarios.Options{Members: 3, Seed: 1}, t.TempDir())
	require.NoError(t, err)
	require.Contains(t, art.Trace, "user-never-registered-m3-s1.trace.jsonl")
	require.FileExists(t, art.Timeline)
}

func namesOf(specs []scenarios.Spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func countOf(specs []scenarios.Spec, name string) int {
	n := 0
	for _, s := range specs {
		if s.Name == name {
			n++
		}
	}
	return n
}
