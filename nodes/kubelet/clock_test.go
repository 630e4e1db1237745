package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// TestLeaseCarriesTheWallClock: the kubelet stamps its node Lease and its
// conditions with its wall clock, so that a step of that clock shows in
// them; it renews on its monotonic clock, which the step leaves alone.
func TestLeaseCarriesTheWallClock(t *testing.T) {
	e := newEnv(t, 7, 1, Config{})
	e.Run(30 * time.Second)
	e.W.Inject(sim.Fault{Kind: sim.FaultClockJump, Targets: [][]string{{"node-1"}}, By: -time.Hour})
	stepped := len(e.rec.heartbeats("node-1"))
	e.Run(30 * time.Second)
	beats := e.rec.heartbeats("node-1")[stepped:]
	require.GreaterOrEqual(t, len(beats), 2, "renewals go on every 10 s")
	require.Less(t, beats[1].Sub(beats[0]), 10*time.Second+500*time.Millisecond)

	obj, err := e.Get(model.ResourceLeasesName, model.NodeLeaseNamespace, "node-1")
	require.NoError(t, err)
	behind := e.W.Now().Sub(sim.Time(*obj.(*model.Lease).Spec.RenewTime))
	require.True(t, behind >= time.Hour && behind < time.Hour+11*time.Second, "renewTime %v behind", behind)
	e.Run(DefaultNodeStatusReportFrequency) // the node status is posted again
	obj, err = e.Get(model.ResourceNodesName, "", "node-1")
	require.NoError(t, err)
	_, ready := model.GetNodeCondition(&obj.(*model.Node).Status, model.NodeReady)
	require.Less(t, ready.LastHeartbeatTime, model.Time(e.W.Now().Add(-59*time.Minute)))
}
