package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

const maintenanceKey = "example.com/maintenance"

var maintenanceNoExecute = model.Taint{Key: maintenanceKey, Effect: model.TaintEffectNoExecute}

// tolerate tolerates a NoExecute taint key, for seconds (nil: forever).
func tolerate(key string, seconds *int64) model.Toleration {
	return model.Toleration{Key: key, Operator: model.TolerationOpExists, Effect: model.TaintEffectNoExecute, TolerationSeconds: seconds}
}

// TestPodBoundToANotReadyNodeIsMarkedNotReady: a Ready pod bound to a node
// that is not ready gets Ready=False at once; one bound to a ready node
// keeps Ready=True. As kubernetes/kubernetes
// pkg/controller/nodelifecycle/node_lifecycle_controller.go: podUpdated
// queues a pod whose spec.nodeName was just set, and processPod marks it
// not ready (MarkPodsNotReady) if its node's Ready condition is not True.
func TestPodBoundToANotReadyNodeIsMarkedNotReady(t *testing.T) {
	e := newEnv(t, 10, 3, Config{})
	e.stopAfterRenewal("node-1")
	e.Run(70 * time.Second)
	o := e.observer()
	o.at(t, "node-1 Ready=Unknown")

	e.addPod("late", "")
	e.addPod("healthy", "")
	require.True(t, o.seen("default/late Ready=True"))
	bound := model.Time(e.W.Now())
	e.bind("late", "node-1")
	e.bind("healthy", "node-2")
	e.Run(5 * time.Second)
	within(t, o.at(t, "default/late Ready=False").Sub(bound), 0, time.Second, "pod bound to a not-ready node")
	require.False(t, o.seen("default/healthy Ready=False"), "pod bound to a ready node")
	require.True(t, model.IsPodReady(e.podNamed("healthy")))
}

// TestPodArrivingOnATaintedNodeIsEvicted: a pod created on, or bound to, a
// node with a NoExecute taint it does not tolerate is deleted at once; so
// is one that tolerates it for 0 seconds; one that tolerates it forever
// stays. As kubernetes/kubernetes pkg/controller/tainteviction/taint_eviction.go:
// PodUpdated handles a pod whose node name changed, processPodOnNode
// deletes at once when a taint is not tolerated, and getMinTolerationTime
// returns 0 for tolerationSeconds <= 0 (only a negative time, no limit,
// cancels).
func TestPodArrivingOnATaintedNodeIsEvicted(t *testing.T) {
	e := newEnv(t, 11, 3, Config{})
	e.updateNode("node-2", func(n *model.Node) { n.Spec.Taints = append(n.Spec.Taints, maintenanceNoExecute) })
	e.Run(time.Second)
	o := e.observer()
	o.at(t, "node-2 taint "+maintenanceNoExecute.String())

	cases := []struct {
		name      string
		bindLater bool
		tol       []model.Toleration
		evicted   bool
	}{
		{"created-there", false, nil, true},
		{"bound-later", true, nil, true},
		{"zero-seconds", false, []model.Toleration{tolerate(maintenanceKey, model.Ptr(int64(0)))}, true},
		{"zero-seconds-bound-later", true, []model.Toleration{tolerate(maintenanceKey, model.Ptr(int64(0)))}, true},
		{"forever", false, []model.Toleration{tolerate(maintenanceKey, nil)}, false},
		{"forever-bound-later", true, []model.Toleration{tolerate(maintenanceKey, nil)}, false},
	}
	arrived := map[string]model.Time{}
	for _, tc := range cases {
		if tc.bindLater {
			e.createPod(tc.name, "", tc.tol...)
			e.Run(time.Second)
			require.False(t, o.seen("default/"+tc.name+" deleting"), "an unbound pod")
			arrived[tc.name] = model.Time(e.W.Now())
			e.bind(tc.name, "node-2")
		} else {
			arrived[tc.name] = model.Time(e.W.Now())
			e.createPod(tc.name, "node-2", tc.tol...)
		}
	}
	e.Run(10 * time.Second)
	for _, tc := range cases {
		if !tc.evicted {
			require.False(t, o.seen("default/"+tc.name+" deleting"), tc.name)
			continue
		}
		within(t, o.at(t, "default/"+tc.name+" deleting").Sub(arrived[tc.name]), 0, time.Second, tc.name)
	}
}
