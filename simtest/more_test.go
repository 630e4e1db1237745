package simtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// leakyRuns is state a careless spec keeps between worlds.
var leakyRuns int

// leakySpec crashes a node in every other world it builds: a world that
// depends on more than its seed, which same seed twice must catch.
func leakySpec() scenarios.Spec {
	spec := userSpec("user-leaky", "")
	spec.Build = func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
		leakyRuns++
		if leakyRuns%2 == 0 {
			c.World.At(sim.Time(40*time.Second), "leak", func() { _ = Crash(c.World, "node-2", 5*time.Second) })
		}
		return nil, nil
	}
	return spec
}

// TestSameSeedTwice: a spec whose world depends on state kept between
// worlds fails the same-seed-twice check at its first seed, with both
// hashes and the replay command; SkipSameSeedTwice (the check's
// ablation) lets it pass.
func TestSameSeedTwice(t *testing.T) {
	leakyRuns = 0
	h := harness{spec: leakySpec(), cfg: newConfig([]Option{Seeds(2), ArtifactDir(t.TempDir())}), test: "TestLeaky", pkg: "example.com/op"}
	out, err := h.run()
	require.NoError(t, err)
	require.NotNil(t, out.failure)
	require.Equal(t, uint64(1), out.failure.result.Seed)
	require.Contains(t, out.failure.report, "same seed twice: the trace differs (hash "+out.results[0].TraceHash)
	require.Contains(t, out.failure.report, "replay with:\n  go test example.com/op -run '^TestLeaky$' -seed 1 -members 3\n")

	leakyRuns = 0
	h.cfg.sameSeedTwice = false
	out, err = h.run()
	require.NoError(t, err)
	require.Nil(t, out.failure, "without the check the leak goes unseen")
	require.Len(t, out.results, 2)
	require.NotEqual(t, out.results[0].Events, out.results[1].Events, "and yet the worlds differ by more than their seeds")
}

// TestRunPasses: Run, as a user calls it, passes a spec whose checks hold
// and returns every world it ran (the first seed twice counts once).
func TestRunPasses(t *testing.T) {
	res := Run(t, userSpec("user-passes", ""), Seeds(2))
	require.Len(t, res, 2)
	for _, r := range res {
		require.True(t, r.OK)
		require.Equal(t, "user-passes", r.Scenario)
	}
}

// TestRegisteredSpec: a registered spec resolves through
// scenarios.Lookup and runs by name with RunScenario; an unnamed spec is
// named after the test.
func TestRegisteredSpec(t *testing.T) {
	registered := scenarios.MustRegister(userSpec("user-registered-stack", ""))
	got, err := scenarios.Lookup("user-registered-stack")
	require.NoError(t, err)
	require.Equal(t, registered.Description, got.Description)
	res := RunScenario(t, "user-registered-stack", Seeds(1), Members(3))
	require.Len(t, res, 1)
	require.Equal(t, "user-registered-stack", res[0].Scenario)

	unnamed := userSpec("", "")
	h := harness{spec: unnamed, test: "TestOp/case one"}
	require.Equal(t, "TestOp-case-one", h.name())
}

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }

// TestCheckDeterminism: the guard, run on a user's packages, reports the
// goroutine and the unexplained map range planted in one and accepts a
// clean one.
func TestCheckDeterminism(t *testing.T) {
	planted := &recorder{TB: t}
	CheckDeterminism(planted, "./guard/testdata/planted")
	require.Len(t, planted.errors, 2, "%v", planted.errors)
	require.Contains(t, planted.errors[0], "planted.go:11:2: go statement")
	require.Contains(t, planted.errors[1], "planted.go:17:2: range over a map")

	clean := &recorder{TB: t}
	CheckDeterminism(clean, "./guard/testdata/clean")
	require.Empty(t, clean.errors)

	missing := &recorder{TB: t}
	CheckDeterminism(missing, "./guard/testdata/none")
	require.Len(t, missing.errors, 1)
	require.True(t, strings.HasPrefix(missing.errors[0], "determinism guard: "))

	CheckDeterminism(t) // simtest's own package: the harness runs worlds, it is not in one, but it passes
}

// TestHostFaults: Crash, Pause and Restart are traced faults, undone after
// their time, unlike sim.Host.Crash, which the trace never sees; a host
// that does not exist is an error, not a silent skip.
func TestHostFaults(t *testing.T) {
	p, err := scenarios.PrepareSpec(userSpec("user-host-faults", ""), scenarios.Options{Members: 3, Seed: 1, Schedule: sim.Schedule{}})
	require.NoError(t, err)
	w := p.World
	var faults []string
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindFault {
			faults = append(faults, fmt.Sprintf("%v %s %s", time.Duration(e.At), e.Name, w.HostName(e.Host)))
		}
	})
	at := func(d time.Duration, fn func() error) {
		w.At(sim.Time(d), "test", func() { require.NoError(t, fn()) })
	}
	at(10*time.Second, func() error { return Crash(w, "node-1", 5*time.Second) })
	at(20*time.Second, func() error { return Pause(w, "etcd-2", 2*time.Second) })
	at(30*time.Second, func() error { return Crash(w, "node-2", 0) })
	at(40*time.Second, func() error { return Restart(w, "node-2") })
	w.At(sim.Time(50*time.Second), "untraced", func() { w.Host(mustID(t, w, "node-1")).Crash() })
	w.At(sim.Time(51*time.Second), "errors", func() {
		require.ErrorContains(t, Crash(w, "node-9", 0), `unknown fault target "node-9"`)
		require.ErrorContains(t, Pause(w, "node-2", -time.Second), "negative duration")
	})
	w.Run(sim.Time(60 * time.Second))
	require.Equal(t, []string{
		"10s crash node-1", "15s restart node-1",
		"20s pause etcd-2", "22s resume etcd-2",
		"30s crash node-2", "40s restart node-2",
	}, faults, "the direct Host.Crash at 50s is not in the trace")
	require.False(t, w.Host(mustID(t, w, "node-1")).Up())
}

func mustID(t *testing.T, w *sim.World, name string) sim.HostID {
	ids, err := w.Resolve(name)
	require.NoError(t, err)
	require.Len(t, ids, 1)
	return ids[0]
}
