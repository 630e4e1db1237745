package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

func (e *env) jumpClock(host string, by time.Duration) {
	e.W.Inject(sim.Fault{Kind: sim.FaultClockJump, Targets: [][]string{{host}}, By: by})
}

// TestKubeletClockStepBackLooksSilent: the controller counts a Lease as
// renewed only when its renewTime, the kubelet's wall clock, is later than
// the one it saw last. A kubelet whose clock steps two minutes back renews
// on time, but with older renewTimes: its node goes Unknown after the grace
// period, as on a real cluster. A step forward changes nothing.
func TestKubeletClockStepBackLooksSilent(t *testing.T) {
	e := newEnv(t, 4, 3, Config{})
	stepAt := model.Time(e.W.Now())
	e.jumpClock("node-1", -2*time.Minute)
	e.jumpClock("node-2", 2*time.Minute)
	e.Run(90 * time.Second)
	o := e.observer()
	within(t, o.at(t, "node-1 Ready=Unknown").Sub(stepAt), 40*time.Second, 61*time.Second, "Unknown after the step back")
	require.False(t, o.seen("node-2 Ready=Unknown"), "a step forward is only a later renewTime")
	require.False(t, o.seen("node-3 Ready=Unknown"))
}

// TestControllerClockStepChangesNothing: the controller measures the grace
// period on its monotonic clock, from when it saw each renewal: a step of
// its own wall clock, either way, neither hastens nor delays a silent
// node's Unknown, and leaves the others Ready.
func TestControllerClockStepChangesNothing(t *testing.T) {
	for _, by := range []time.Duration{-5 * time.Minute, 5 * time.Minute} {
		e := newEnv(t, 5, 3, Config{})
		last := e.stopAfterRenewal("node-1")
		e.Run(10 * time.Second) // the controller has seen the last renewal
		e.jumpClock("kcm", by)
		e.Run(2 * time.Minute)
		o := e.observer()
		within(t, o.at(t, "node-1 Ready=Unknown").Sub(last), 50*time.Second, 55500*time.Millisecond, "Ready=Unknown after the last renewal")
		require.False(t, o.seen("node-2 Ready=Unknown"), "after a step of %v", by)
		require.False(t, o.seen("node-3 Ready=Unknown"), "after a step of %v", by)
	}
}
