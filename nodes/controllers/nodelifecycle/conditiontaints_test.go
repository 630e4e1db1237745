package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestConditionTaint: the NoSchedule taint each node condition calls for,
// as nodeConditionToTaintKeyStatusMap in kubernetes/kubernetes
// pkg/controller/nodelifecycle/node_lifecycle_controller.go: Ready False
// and Unknown, and MemoryPressure, DiskPressure, NetworkUnavailable and
// PIDPressure True; nothing else.
func TestConditionTaint(t *testing.T) {
	want := map[model.NodeConditionType]map[model.ConditionStatus]string{
		model.NodeReady:              {model.ConditionFalse: model.TaintNodeNotReady, model.ConditionUnknown: model.TaintNodeUnreachable},
		model.NodeMemoryPressure:     {model.ConditionTrue: model.TaintNodeMemoryPressure},
		model.NodeDiskPressure:       {model.ConditionTrue: model.TaintNodeDiskPressure},
		model.NodeNetworkUnavailable: {model.ConditionTrue: "node.kubernetes.io/network-unavailable"},
		model.NodePIDPressure:        {model.ConditionTrue: "node.kubernetes.io/pid-pressure"},
	}
	types := []model.NodeConditionType{model.NodeReady, model.NodeMemoryPressure, model.NodeDiskPressure,
		model.NodeNetworkUnavailable, model.NodePIDPressure}
	for _, typ := range types {
		for _, st := range []model.ConditionStatus{model.ConditionTrue, model.ConditionFalse, model.ConditionUnknown} {
			key, ok := conditionTaint(model.NodeCondition{Type: typ, Status: st})
			require.Equal(t, want[typ][st], key, "%s=%s", typ, st)
			require.Equal(t, want[typ][st] != "", ok, "%s=%s", typ, st)
		}
	}
}

// TestAddOrUpdateTaintComparesTimeAdded: a taint matching one on the node
// replaces it unless it is the same, TimeAdded included (as
// taints.AddOrUpdateTaint, which compares with semantic DeepEqual: a set
// TimeAdded differs from none, and two are the same only at the same time).
func TestAddOrUpdateTaintComparesTimeAdded(t *testing.T) {
	t1, t2 := model.Ptr(model.Time(1)), model.Ptr(model.Time(2))
	cases := []struct {
		name      string
		have, add *model.Time
		changed   bool
	}{
		{"neither stamped", nil, nil, false},
		{"stamped on the node only", t1, nil, true},
		{"stamped in the new taint only", nil, t1, true},
		{"the same time", t1, model.Ptr(model.Time(1)), false},
		{"another time", t1, t2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := &model.Node{}
			n.Spec.Taints = []model.Taint{{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute, TimeAdded: tc.have}}
			add := model.Taint{Key: model.TaintNodeUnreachable, Effect: model.TaintEffectNoExecute, TimeAdded: tc.add}
			require.Equal(t, tc.changed, addOrUpdateTaint(n, add))
			require.Equal(t, []model.Taint{add}, n.Spec.Taints)
		})
	}
}

// TestNoScheduleTaintsOfOthersAreKept: the NoSchedule pass manages only
// the condition taints and the unschedulable taint
// (doNoScheduleTaintingPass filters the node's taints to those keys): it
// adds node.kubernetes.io/unschedulable to a cordoned node and leaves a
// NoSchedule taint of someone else alone.
func TestNoScheduleTaintsOfOthersAreKept(t *testing.T) {
	e := newEnv(t, 17, 3, Config{})
	dedicated := model.Taint{Key: "example.com/dedicated", Effect: model.TaintEffectNoSchedule}
	e.updateNode("node-2", func(n *model.Node) {
		n.Spec.Taints = append(n.Spec.Taints, dedicated)
		n.Spec.Unschedulable = true
	})
	e.Run(10 * time.Second)
	taints := e.node("node-2").Spec.Taints
	require.Contains(t, taints, dedicated)
	unschedulable := 0
	for _, tt := range taints {
		if tt.Key == model.TaintNodeUnschedulable && tt.Effect == model.TaintEffectNoSchedule {
			unschedulable++
		}
	}
	require.Equal(t, 1, unschedulable)
}

// postReady posts the node's Ready condition with a fresh heartbeat, as
// its kubelet would.
func (e *env) postReady(name string, status model.ConditionStatus) {
	n := e.node(name)
	now := model.Time(e.Host("admin").WallClock())
	model.SetNodeCondition(&n.Status, model.NodeCondition{Type: model.NodeReady, Status: status, LastHeartbeatTime: now, LastTransitionTime: now})
	done := false
	e.Admin().Nodes().UpdateStatus(n, func(_ model.Object, err error) {
		require.NoError(e.t, err)
		done = true
	})
	for i := 0; i < 100 && !done; i++ {
		e.Run(10 * time.Millisecond)
	}
	require.True(e.t, done)
}

// TestNotReadyTaintComesOffWhenReady: a node posting Ready=False gets
// node.kubernetes.io/not-ready:NoExecute, and loses it when it posts
// Ready=True again (markNodeAsReachable removes the unreachable, then the
// not-ready taint).
func TestNotReadyTaintComesOffWhenReady(t *testing.T) {
	e := newEnv(t, 18, 3, Config{})
	notReady := "node-2 taint node.kubernetes.io/not-ready:NoExecute"
	e.postReady("node-2", model.ConditionFalse)
	e.Run(15 * time.Second)
	o := e.observer()
	o.at(t, notReady)
	e.postReady("node-2", model.ConditionTrue)
	e.Run(15 * time.Second)
	require.NotContains(t, e.node("node-2").Spec.Taints, notReadyTaint)
	for _, tt := range e.node("node-2").Spec.Taints {
		require.NotEqual(t, model.TaintEffectNoExecute, tt.Effect, "%v", tt)
	}
}

// TestRemovedUnreachableTaintComesBack: when the unreachable NoExecute
// taint is taken off a node that is still unreachable, the controller
// queues it again and puts the taint back (markNodeForTainting removes a
// node lacking its taint from the queue's set before adding it).
func TestRemovedUnreachableTaintComesBack(t *testing.T) {
	e := newEnv(t, 19, 3, Config{})
	e.stopAfterRenewal("node-1")
	e.Run(70 * time.Second)
	require.Contains(t, keys(e.node("node-1").Spec.Taints), unreachableTaint.Key+":NoExecute")
	e.updateNode("node-1", func(n *model.Node) { removeTaint(n, &unreachableTaint) })
	require.NotContains(t, keys(e.node("node-1").Spec.Taints), unreachableTaint.Key+":NoExecute")
	e.Run(20 * time.Second)
	require.Contains(t, keys(e.node("node-1").Spec.Taints), unreachableTaint.Key+":NoExecute")
}

func keys(ts []model.Taint) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out
}

// TestTaintingPassesDoNotWaitForTheMonitor: the tainting queue is drained
// every 100 ms (doNoExecuteTaintingPass on its own loop, at
// --node-eviction-rate), not at the monitor's passes: with a 30 s monitor
// period, nodes queued together are still tainted 10 s apart.
func TestTaintingPassesDoNotWaitForTheMonitor(t *testing.T) {
	e := newEnv(t, 20, 10, Config{NodeMonitorPeriod: 30 * time.Second})
	e.stopAfterRenewal("node-1", "node-2", "node-3")
	e.Run(150 * time.Second)
	e.requireUnreachableTaintedTenSecondsApart("node-1", "node-2", "node-3")
}
