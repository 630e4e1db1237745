package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestRegistrationAndLease: the kubelet registers its Node (capacity,
// Ready/KubeletReady, InternalIP), creates its node Lease and renews it
// every 10 s (jittered by at most 4%), tracing each acknowledged renewal.
func TestRegistrationAndLease(t *testing.T) {
	for _, members := range []int{1, 3} {
		e := newEnv(t, 7, members, Config{})
		e.Run(60 * time.Second)

		obj, err := e.Get(model.ResourceNodesName, "", "node-1")
		require.NoError(t, err)
		node := obj.(*model.Node)
		require.Equal(t, defaultCapacity(), node.Status.Capacity)
		require.Equal(t, defaultCapacity(), node.Status.Allocatable)
		_, ready := model.GetNodeCondition(&node.Status, model.NodeReady)
		require.NotNil(t, ready)
		require.Equal(t, model.ConditionTrue, ready.Status)
		require.Equal(t, "KubeletReady", ready.Reason)
		require.Equal(t, "InternalIP", node.Status.Addresses[0].Type)

		obj, err = e.Get(model.ResourceLeasesName, model.NodeLeaseNamespace, "node-1")
		require.NoError(t, err)
		lease := obj.(*model.Lease)
		require.Equal(t, "node-1", *lease.Spec.HolderIdentity)
		require.Equal(t, int32(40), *lease.Spec.LeaseDurationSeconds)
		require.Equal(t, node.UID, lease.OwnerReferences[0].UID)

		beats := e.rec.heartbeats("node-1")
		require.GreaterOrEqual(t, len(beats), 5)
		for i := 1; i < len(beats); i++ {
			gap := beats[i].Sub(beats[i-1])
			require.GreaterOrEqual(t, gap, 10*time.Second, "renewal %d", i)
			require.Less(t, gap, 10*time.Second+500*time.Millisecond, "renewal %d", i)
		}
	}
}

// TestNodeStatusRepairsUnknown: when someone (the node lifecycle
// controller) sets the Node's Ready condition to Unknown, the kubelet's
// next status sync posts Ready=True again with a fresh heartbeat.
func TestNodeStatusRepairsUnknown(t *testing.T) {
	e := newEnv(t, 3, 1, Config{})
	e.Run(15 * time.Second)
	obj, err := e.Get(model.ResourceNodesName, "", "node-1")
	require.NoError(t, err)
	node := obj.(*model.Node)
	_, c := model.GetNodeCondition(&node.Status, model.NodeReady)
	c.Status, c.Reason = model.ConditionUnknown, "NodeStatusUnknown"
	updated := false
	e.Admin().Nodes().UpdateStatus(node, func(_ model.Object, err error) {
		require.NoError(t, err)
		updated = true
	})
	e.runUntil(10*time.Second, "status update", func() bool { return updated })
	set := e.W.Now()
	e.Run(11 * time.Second)
	obj, err = e.Get(model.ResourceNodesName, "", "node-1")
	require.NoError(t, err)
	_, c = model.GetNodeCondition(&obj.(*model.Node).Status, model.NodeReady)
	require.Equal(t, model.ConditionTrue, c.Status)
	require.Equal(t, "KubeletReady", c.Reason)
	require.Greater(t, c.LastHeartbeatTime, model.Time(set))
	require.Greater(t, c.LastTransitionTime, model.Time(set))
}
