package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// TestDeletedNodeDropsItsPodMarkingRetry: when marking a silent node's
// pods not ready fails, the next passes retry it while the node stays not
// ready (nodesToRetry); deleting the Node drops that retry, so a node
// registering again under the name, not ready, does not have the old pods
// marked by the monitor. As kubernetes/kubernetes
// pkg/controller/nodelifecycle/node_lifecycle_controller.go: the node
// informer's DeleteFunc runs nc.nodesToRetry.Delete(node.Name), and
// monitorNodeHealth marks pods only on a Ready transition or a retry.
func TestDeletedNodeDropsItsPodMarkingRetry(t *testing.T) {
	e := newEnv(t, 16, 3, Config{})
	e.addPod("p", "node-1")
	var cutAt sim.Time
	e.onKcmWrite = func(w string) {
		if w == "update-status pods default/p" && cutAt == 0 {
			// The marking is dropped on its way: it times out (10 s).
			cutAt = e.W.Now()
			e.W.Inject(sim.Fault{Kind: sim.FaultOneWay, Targets: [][]string{{"kcm"}, {"apiserver-1"}}})
		}
	}
	e.stopAfterRenewal("node-1")
	for i := 0; i < 1000 && cutAt == 0; i++ {
		e.Run(100 * time.Millisecond)
	}
	require.NotZero(t, cutAt, "the controller never marked the pod")
	o := e.observer()
	o.at(t, "node-1 Ready=Unknown")

	// The marking has failed, and the next pass is 5 s away: the node is
	// deleted, and registers again with Ready=False.
	e.Run(cutAt.Add(10*time.Second + 200*time.Millisecond).Sub(e.W.Now()))
	e.W.Inject(sim.Fault{Kind: sim.FaultHeal})
	done := false
	e.Admin().Nodes().Delete("node-1", client.DeleteOptions{}, func(_ model.Object, err error) { require.NoError(t, err); done = true })
	e.Run(time.Second)
	require.True(t, done)
	n := &model.Node{}
	n.Name = "node-1"
	obj, err := e.Create(n)
	require.NoError(t, err)
	n = obj.(*model.Node)
	now := model.Time(e.Host("admin").WallClock())
	model.SetNodeCondition(&n.Status, model.NodeCondition{Type: model.NodeReady, Status: model.ConditionFalse,
		LastHeartbeatTime: now, LastTransitionTime: now})
	done = false
	e.Admin().Nodes().UpdateStatus(n, func(_ model.Object, err error) { require.NoError(t, err); done = true })
	e.Run(20 * time.Second)
	require.True(t, done)
	require.True(t, o.seen("node-1 Ready=False"))

	require.False(t, o.seen("default/p Ready=False"), "the deleted node's retry marked the pod")
	require.True(t, model.IsPodReady(e.podNamed("p")))
}

// TestFailedPodMarkingIsRetried: when marking a silent node's pods not
// ready fails, the next pass retries it (nodesToRetry, for a node still
// not ready), and it succeeds once the API server answers again.
// MarkPodsNotReady skips pods without a Ready condition and pods already
// not ready, and goes on to the others. As monitorNodeHealth's
// `needsRetry && observedReadyCondition.Status != v1.ConditionTrue` case.
func TestFailedPodMarkingIsRetried(t *testing.T) {
	e := newEnv(t, 21, 3, Config{})
	e.createPod("a-no-status", "node-1")
	e.addPod("b-not-ready", "node-1")
	p := e.podNamed("b-not-ready")
	p.Status.Conditions[0].Status = model.ConditionFalse
	done := false
	e.Admin().Pods(ns).UpdateStatus(p, func(_ model.Object, err error) { require.NoError(t, err); done = true })
	e.Run(time.Second)
	require.True(t, done)
	e.addPod("c-ready", "node-1")
	var cutAt sim.Time
	e.onKcmWrite = func(w string) {
		if w == "update-status pods default/c-ready" && cutAt == 0 {
			cutAt = e.W.Now()
			e.W.Inject(sim.Fault{Kind: sim.FaultOneWay, Targets: [][]string{{"kcm"}, {"apiserver-1"}}, For: 11 * time.Second})
		}
	}
	e.stopAfterRenewal("node-1")
	for i := 0; i < 1000 && cutAt == 0; i++ {
		e.Run(100 * time.Millisecond)
	}
	require.NotZero(t, cutAt, "the controller never marked the pod")
	e.Run(cutAt.Add(10 * time.Second).Sub(e.W.Now()))
	o := e.observer()
	require.False(t, o.seen("default/c-ready Ready=False"), "the first marking was dropped")
	e.Run(20 * time.Second)
	within(t, o.at(t, "default/c-ready Ready=False").Sub(model.Time(cutAt)), 10*time.Second, 17*time.Second, "marked by the retry")
}
