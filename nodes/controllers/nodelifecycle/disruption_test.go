package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestLeavingFullDisruption: when a node of a fully disrupted cluster comes
// back, tainting resumes at the normal rate, starting from an empty token
// bucket (the never-limiter it replaces had none to give).
func TestLeavingFullDisruption(t *testing.T) {
	e := newEnv(t, 5, 3, Config{})
	e.stopAfterRenewal("node-1", "node-2", "node-3")
	e.Run(120 * time.Second)
	o := e.observer()
	require.Equal(t, "FullDisruption", e.controller().ZoneStates()[""])
	for _, n := range []string{"node-1", "node-2", "node-3"} {
		require.True(t, o.seen(n+" Ready=Unknown"))
		require.False(t, o.seen(n+" "+unreachableNoExecute), "no taints while every node is silent")
	}

	back := model.Time(e.W.Now())
	e.Host("node-1").Restart()
	e.Run(60 * time.Second)
	require.Equal(t, "Normal", e.controller().ZoneStates()[""])
	t2, t3 := o.at(t, "node-2 "+unreachableNoExecute), o.at(t, "node-3 "+unreachableNoExecute)
	first, second := min(t2, t3), max(t2, t3)
	within(t, first.Sub(back), 10*time.Second, 16*time.Second, "first taint after the way out")
	within(t, second.Sub(first), 10*time.Second, 10500*time.Millisecond, "second taint")
	require.False(t, o.seen("node-1 "+unreachableNoExecute))
}

// TestNodeThatNeverPostedStatus: a node without a Ready condition gets the
// startup grace period (60 s) and conditions saying it never posted.
func TestNodeThatNeverPostedStatus(t *testing.T) {
	e := newEnv(t, 6, 3, Config{})
	n := &model.Node{}
	n.Name = "silent"
	_, err := e.Create(n)
	require.NoError(t, err)
	created := model.Time(e.W.Now())
	e.Run(90 * time.Second)
	o := e.observer()
	within(t, o.at(t, "silent Ready=Unknown").Sub(created), 60*time.Second, 66*time.Second, "startup grace period")
	_, c := model.GetNodeCondition(&e.node("silent").Status, model.NodeReady)
	require.Equal(t, "NodeStatusNeverUpdated", c.Reason)
	require.Equal(t, "Kubelet never posted node status.", c.Message)
}

// TestUntoleratedTaintEvictsAtOnce: a NoExecute taint a pod does not
// tolerate deletes it at once; a pod that tolerates it stays.
func TestUntoleratedTaintEvictsAtOnce(t *testing.T) {
	e := newEnv(t, 7, 3, Config{})
	e.addPod("plain", "node-2")
	e.addPod("tolerant", "node-2", model.Toleration{Key: "example.com/maintenance", Operator: model.TolerationOpExists})
	n := e.node("node-2")
	n.Spec.Taints = append(n.Spec.Taints, model.Taint{Key: "example.com/maintenance", Effect: model.TaintEffectNoExecute})
	done := false
	e.Admin().Nodes().Update(n, func(_ model.Object, err error) { require.NoError(t, err); done = true })
	e.Run(time.Second)
	require.True(t, done)
	tainted := e.observer().at(t, "node-2 taint example.com/maintenance:NoExecute")
	e.Run(10 * time.Second)
	o := e.observer()
	within(t, o.at(t, "default/plain deleting").Sub(tainted), 0, 500*time.Millisecond, "untolerated")
	require.False(t, o.seen("default/tolerant deleting"))
	require.Contains(t, e.node("node-2").Spec.Taints,
		model.Taint{Key: "example.com/maintenance", Effect: model.TaintEffectNoExecute}, "not a taint of the controller's")
}

// TestStopEndsTheController: a stopped controller marks and taints
// nothing.
func TestStopEndsTheController(t *testing.T) {
	e := newEnv(t, 8, 3, Config{})
	e.controller().Stop()
	e.stopAfterRenewal("node-1")
	e.Run(120 * time.Second)
	o := e.observer()
	require.False(t, o.seen("node-1 Ready=Unknown"))
	require.False(t, o.seen("node-1 "+unreachableNoSchedule))
}

// TestDeterministic runs the same failure twice: identical traces.
func TestDeterministic(t *testing.T) {
	run := func() uint64 {
		e := newEnv(t, 9, 4, Config{})
		e.addPod("p", "node-1")
		e.stopAfterRenewal("node-1")
		e.Run(400 * time.Second)
		return e.W.Trace().Hash()
	}
	require.Equal(t, run(), run())
}
