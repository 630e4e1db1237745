package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// The scheduled deletions of the taint eviction controller, as the
// TimedWorkerQueue of kubernetes/kubernetes
// pkg/controller/tainteviction/timed_workers.go and its users in
// taint_eviction.go.

const otherKey = "example.com/other"

var otherNoExecute = model.Taint{Key: otherKey, Effect: model.TaintEffectNoExecute}

// taintNode2 adds a NoExecute taint to node-2 and returns when the
// observer saw it.
func (e *env) taintNode2(taint model.Taint) model.Time {
	e.updateNode("node-2", func(n *model.Node) { n.Spec.Taints = append(n.Spec.Taints, taint) })
	e.Run(time.Second)
	return e.observer().at(e.t, "node-2 taint "+taint.String())
}

// TestRecreatedPodGetsAFreshTolerationWindow: a pod deleted before its
// toleration ran out takes its scheduled deletion with it, so a new pod of
// the same name is given its own full tolerationSeconds. As handlePodUpdate
// (a pod gone from the lister: cancelWorkWithEvent).
func TestRecreatedPodGetsAFreshTolerationWindow(t *testing.T) {
	e := newEnv(t, 12, 3, Config{})
	e.taintNode2(maintenanceNoExecute)
	tol := tolerate(maintenanceKey, model.Ptr(int64(60)))
	e.createPod("p", "node-2", tol)
	e.Run(30 * time.Second)
	e.forceDelete("p")
	e.Run(time.Second)
	o := e.observer()
	require.False(t, o.seen("default/p deleting"))

	recreated := model.Time(e.W.Now())
	e.createPod("p", "node-2", tol)
	e.Run(90 * time.Second)
	within(t, o.at(t, "default/p deleting").Sub(recreated), 60*time.Second, 61*time.Second, "the new pod's own 60 s")
}

// TestEvictedPodRemovedControllerCarriesOn: after a pod was evicted, its
// removal, and then the node's loss of the taint, drop the finished
// deletion, and the controller goes on evicting: a pod arriving after the
// taint comes back is deleted at once. As cancelWorkWithEvent (CancelWork
// of a finished, nil, worker).
func TestEvictedPodRemovedControllerCarriesOn(t *testing.T) {
	e := newEnv(t, 13, 3, Config{})
	e.taintNode2(maintenanceNoExecute)
	e.createPod("first", "node-2")
	e.createPod("second", "node-2")
	e.Run(5 * time.Second)
	o := e.observer()
	require.True(t, o.seen("default/first deleting"))
	require.True(t, o.seen("default/second deleting"))

	e.forceDelete("first")
	e.Run(time.Second)
	e.updateNode("node-2", func(n *model.Node) { removeTaint(n, &maintenanceNoExecute) })
	e.Run(time.Second)
	require.NotContains(t, e.node("node-2").Spec.Taints, maintenanceNoExecute)

	e.taintNode2(maintenanceNoExecute)
	arrived := model.Time(e.W.Now())
	e.createPod("third", "node-2")
	e.Run(5 * time.Second)
	within(t, o.at(t, "default/third deleting").Sub(arrived), 0, time.Second, "evicted after the others went")
}

// TestEvictionIsNotRepeated: an eviction that succeeded is kept, so that
// the pod is not deleted again: not on a node change that leaves the
// NoExecute taints alone (handleNodeUpdate is only queued when they
// change), nor when a new taint the pod tolerates comes (AddWork finds the
// finished worker). The deletes are counted as the controller sends them.
func TestEvictionIsNotRepeated(t *testing.T) {
	e := newEnv(t, 14, 3, Config{})
	e.taintNode2(maintenanceNoExecute)
	e.createPod("plain", "node-2")
	e.createPod("tolerant", "node-2", tolerate(maintenanceKey, model.Ptr(int64(10))), tolerate(otherKey, model.Ptr(int64(10))))
	e.Run(15 * time.Second)
	o := e.observer()
	require.True(t, o.seen("default/plain deleting"))
	require.True(t, o.seen("default/tolerant deleting"))
	require.Equal(t, 1, e.kcmDeletes("plain"))
	require.Equal(t, 1, e.kcmDeletes("tolerant"))

	e.updateNode("node-2", func(n *model.Node) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels["example.com/rack"] = "r1"
	})
	e.Run(5 * time.Second)
	require.Equal(t, "r1", e.node("node-2").Labels["example.com/rack"])
	require.Equal(t, 1, e.kcmDeletes("plain"), "a label change deleted the evicted pod again")

	e.taintNode2(otherNoExecute)
	e.Run(20 * time.Second)
	require.Equal(t, 1, e.kcmDeletes("tolerant"), "a tolerated taint deleted the evicted pod again")
}

// TestFailedEvictionIsDroppedUntilTheNextTaintChange: a deletion that
// fails is tried 5 times 10 ms apart (deletePodHandler's retries), then
// dropped (getWrappedWorkerFunc deletes a failed worker): the pod stays
// until the next change of its node's taints schedules it again, with a
// fresh toleration window. The controller manager is cut off from the API
// server over the attempts (each times out after 10 s); the grace period
// is long so that the cut does not make the nodes look silent.
func TestFailedEvictionIsDroppedUntilTheNextTaintChange(t *testing.T) {
	e := newEnv(t, 15, 3, Config{NodeMonitorGracePeriod: 10 * time.Minute})
	tainted := e.taintNode2(maintenanceNoExecute)
	e.createPod("p", "node-2", tolerate(maintenanceKey, model.Ptr(int64(60))), tolerate(otherKey, model.Ptr(int64(60))))
	e.Run(tainted.Add(55 * time.Second).Sub(model.Time(e.W.Now())))
	e.W.Inject(sim.Fault{Kind: sim.FaultPartition, Targets: [][]string{{"kcm"}, {"apiserver-1"}}, For: 60 * time.Second})
	e.Run(90 * time.Second)
	o := e.observer()
	require.False(t, o.seen("default/p deleting"), "a failed eviction was not dropped after 5 attempts")
	require.Zero(t, e.kcmDeletes("p"))

	again := e.taintNode2(otherNoExecute)
	e.Run(90 * time.Second)
	within(t, o.at(t, "default/p deleting").Sub(again), 59*time.Second, 61*time.Second, "scheduled again by the new taint")
}

// TestEvictionRetriesAFailedDelete: an eviction whose first attempts fail
// is retried (deletePodHandler tries 5 times), so a controller manager cut
// off from the API server for less than those attempts still evicts the
// pod once the cut heals, without waiting for a new taint.
func TestEvictionRetriesAFailedDelete(t *testing.T) {
	e := newEnv(t, 16, 3, Config{NodeMonitorGracePeriod: 10 * time.Minute})
	tainted := e.taintNode2(maintenanceNoExecute)
	e.createPod("p", "node-2", tolerate(maintenanceKey, model.Ptr(int64(60))))
	e.Run(tainted.Add(55 * time.Second).Sub(model.Time(e.W.Now())))
	e.W.Inject(sim.Fault{Kind: sim.FaultPartition, Targets: [][]string{{"kcm"}, {"apiserver-1"}}, For: 15 * time.Second})
	e.Run(60 * time.Second)
	require.True(t, e.observer().seen("default/p deleting"), "the eviction was retried after the cut healed")
}
