package nodelifecycle

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

const (
	unreachableNoExecute  = "taint node.kubernetes.io/unreachable:NoExecute"
	unreachableNoSchedule = "taint node.kubernetes.io/unreachable:NoSchedule"
)

func within(t *testing.T, got, lo, hi time.Duration, what string) {
	t.Helper()
	require.True(t, got >= lo && got <= hi, "%s: %v, want within [%v, %v]", what, got, lo, hi)
}

// TestSilentNodeIsTaintedAndItsPodsEvicted: a node whose Lease stops being
// renewed goes Unknown 50-55 s after the last renewal, gets the
// unreachable taints, has its pods marked not ready, and loses each pod
// when the pod's toleration of the taint runs out.
func TestSilentNodeIsTaintedAndItsPodsEvicted(t *testing.T) {
	e := newEnv(t, 1, 3, Config{})
	unreachable := func(seconds *int64) model.Toleration {
		return model.Toleration{Key: model.TaintNodeUnreachable, Operator: model.TolerationOpExists,
			Effect: model.TaintEffectNoExecute, TolerationSeconds: seconds}
	}
	e.addPod("p-default", "node-1")
	e.addPod("p-60s", "node-1", unreachable(model.Ptr(int64(60))))
	e.addPod("p-forever", "node-1", unreachable(nil))
	e.addPod("q", "node-2")

	last := e.stopAfterRenewal("node-1")
	e.Run(400 * time.Second)
	o := e.observer()

	unknown := o.at(t, "node-1 Ready=Unknown")
	within(t, unknown.Sub(last), 50*time.Second, 55500*time.Millisecond, "Ready=Unknown after the last renewal")
	n := e.node("node-1")
	for _, typ := range unknownConditionTypes {
		_, c := model.GetNodeCondition(&n.Status, typ)
		require.Equal(t, model.ConditionUnknown, c.Status, typ)
		require.Equal(t, "NodeStatusUnknown", c.Reason, typ)
		require.Equal(t, "Kubelet stopped posting node status.", c.Message, typ)
	}
	within(t, o.at(t, "default/p-default Ready=False").Sub(unknown), 0, time.Second, "pods marked not ready")

	tainted := o.at(t, "node-1 "+unreachableNoExecute)
	within(t, tainted.Sub(unknown), 0, 5500*time.Millisecond, "NoExecute taint after Unknown (the next pass)")
	require.True(t, o.seen("node-1 "+unreachableNoSchedule))
	for _, taint := range n.Spec.Taints {
		if taint.Effect == model.TaintEffectNoExecute {
			require.NotNil(t, taint.TimeAdded)
			within(t, tainted.Sub(*taint.TimeAdded), 0, time.Second, "TimeAdded")
		}
	}

	within(t, o.at(t, "default/p-default deleting").Sub(tainted), 299*time.Second, 301*time.Second, "default toleration")
	within(t, o.at(t, "default/p-60s deleting").Sub(tainted), 59*time.Second, 61*time.Second, "60 s toleration")
	require.False(t, o.seen("default/p-forever deleting"), "tolerates forever")
	require.False(t, o.seen("default/q deleting"), "pod of a healthy node")
	require.False(t, o.seen("node-2 Ready=Unknown"))
	require.False(t, o.seen("node-2 "+unreachableNoExecute))
	within(t, o.at(t, "default/p-default deleting").Sub(last), 350*time.Second, 361*time.Second, "eviction after heartbeats stop")

	_, c := model.GetPodCondition(&e.podNamed("p-default").Status, PodDisruptionTarget)
	require.NotNil(t, c)
	require.Equal(t, ReasonDeletionByTaintManager, c.Reason)
}

// TestNodeResumingBeforeEvictionKeepsItsPods: a node that comes back
// before its pods' tolerations run out loses its taints and keeps them.
func TestNodeResumingBeforeEvictionKeepsItsPods(t *testing.T) {
	e := newEnv(t, 2, 3, Config{})
	e.addPod("p", "node-1")
	e.stopAfterRenewal("node-1")
	e.Run(120 * time.Second)
	o := e.observer()
	tainted := o.at(t, "node-1 "+unreachableNoExecute)

	e.Host("node-1").Restart()
	e.Run(400 * time.Second)
	require.Equal(t, model.ConditionTrue, model.NodeReadyStatus(e.node("node-1")))
	require.Empty(t, e.node("node-1").Spec.Taints)
	require.True(t, o.last["node-1 "+unreachableNoExecute] < o.last["node-1 untainted"])
	require.False(t, o.seen("default/p deleting"), "kept its pod")
	require.Greater(t, model.Time(e.W.Now()).Sub(tainted), 400*time.Second, "well past the toleration")
}

// TestEvictionRateLimit: in a healthy zone the controller taints at most
// one node every 10 s (--node-eviction-rate 0.1).
func TestEvictionRateLimit(t *testing.T) {
	e := newEnv(t, 3, 10, Config{})
	e.stopAfterRenewal("node-1", "node-2", "node-3")
	e.Run(120 * time.Second)
	e.requireUnreachableTaintedTenSecondsApart("node-1", "node-2", "node-3")
	require.Equal(t, "Normal", e.controller().ZoneStates()[""])
}

// TestZoneDisruption: when every node goes silent the controller blames
// itself and taints none; when most nodes of a small cluster do, it stops
// tainting too; a minority is tainted and evicted.
func TestZoneDisruption(t *testing.T) {
	cases := []struct {
		name        string
		nodes, stop int
		state       string
		tainted     int
	}{
		{"all nodes silent: full disruption", 3, 3, "FullDisruption", 0},
		{"3 of 5 silent in a small cluster: partial disruption", 5, 3, "PartialDisruption", 0},
		{"2 of 5 silent: normal", 5, 2, "Normal", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 4, tc.nodes, Config{})
			var stopped []string
			for i := 1; i <= tc.stop; i++ {
				name := "node-" + string(rune('0'+i))
				stopped = append(stopped, name)
				e.addPod("p-"+name, name)
			}
			e.stopAfterRenewal(stopped...)
			e.Run(400 * time.Second)
			o := e.observer()
			require.Equal(t, tc.state, e.controller().ZoneStates()[""])
			tainted, evicted := 0, 0
			for _, name := range stopped {
				require.True(t, o.seen(name+" Ready=Unknown"))
				if o.seen(name + " " + unreachableNoExecute) {
					tainted++
				}
				if o.seen("default/p-" + name + " deleting") {
					evicted++
				}
			}
			require.Equal(t, tc.tainted, tainted, "nodes tainted NoExecute")
			require.Equal(t, tc.tainted, evicted, "pods evicted")
		})
	}
}

// requireUnreachableTaintedTenSecondsApart asserts that the nodes got the
// unreachable NoExecute taint one after another, 10 s apart (the zone's
// --node-eviction-rate 0.1).
func (e *env) requireUnreachableTaintedTenSecondsApart(nodes ...string) {
	e.t.Helper()
	var added []model.Time
	for _, name := range nodes {
		for _, taint := range e.node(name).Spec.Taints {
			if taint.Key == model.TaintNodeUnreachable && taint.Effect == model.TaintEffectNoExecute {
				added = append(added, *taint.TimeAdded)
			}
		}
	}
	require.Len(e.t, added, len(nodes))
	slicesSort(added)
	for i := 1; i < len(added); i++ {
		within(e.t, added[i].Sub(added[i-1]), 10*time.Second, 10500*time.Millisecond, fmt.Sprintf("taint %d", i+1))
	}
}
