package simtest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/simtest"
)

// faultsSeen is an invariant of the user's own, as docs/library.md writes
// one: it counts the crash faults and fails if there were none, so that
// the schedule below is known to have run.
type faultsSeen struct{ crashes int }

func (c *faultsSeen) Name() string { return "user-faults-seen" }
func (c *faultsSeen) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault && e.Name == string(sim.FaultCrash) {
		c.crashes++
	}
}
func (c *faultsSeen) Finish() checks.Result {
	if c.crashes == 0 {
		return checks.Result{Name: c.Name(), Detail: "no crash happened"}
	}
	return checks.Result{Name: c.Name(), OK: true, Detail: "crashes happened"}
}

// mySpec is the spec docs/library.md builds: the catalogue's stack chaos
// at a small size, with a check of the user's own.
var mySpec = scenarios.MustRegister(func() scenarios.Spec {
	spec := catalogue.StackChaosSpec("my-operator-chaos", 2, 2, 2, 5*time.Minute)
	spec.Build = func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
		return []checks.Check{&faultsSeen{}}, nil
	}
	return spec
}())

// TestMyOperator is docs/library.md's test, from a package of the user's
// own (simtest_test): Run with a schedule written by the builder.
func TestMyOperator(t *testing.T) {
	faults := sim.NewScheduleBuilder().
		Crash(40*time.Second, "node-1").For(10*time.Second).
		Partition(60*time.Second, []string{"etcd-1"}, []string{"etcd-2", "etcd-3"}).For(15*time.Second).
		Pause(90*time.Second, "etcd-leader").For(3 * time.Second).
		MustSchedule()
	simtest.Run(t, mySpec, simtest.Seeds(2), simtest.Members(3), simtest.Schedule(faults))
	simtest.RunScenario(t, "my-operator-chaos", simtest.Seeds(1), simtest.Members(3))

	// The invariant can fail: without faults, no crash is seen.
	res, err := scenarios.Run(scenarios.Options{Scenario: "my-operator-chaos", Members: 3, Seed: 1, Schedule: sim.Schedule{}})
	require.NoError(t, err)
	require.False(t, res.OK)
	require.Equal(t, "user-faults-seen", res.Failed()[0].Name)
}
