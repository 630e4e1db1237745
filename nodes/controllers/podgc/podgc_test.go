package podgc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

func pod(name, node string) *model.Pod {
	return &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.PodSpec{NodeName: node, Containers: []model.Container{{Name: "app", Image: "app"}}}}
}

// TestPodsOfAGoneNodeAreDeletedAfterTheQuarantine: pods bound to a node
// that does not exist are force-deleted once the node has been missing for
// 40 s (checked every 20 s); pods of a node that exists stay.
//
// As kubernetes/kubernetes pkg/controller/podgc/gc_controller.go: gcOrphaned
// puts a node first seen missing into nodeQueue with AddAfter(node,
// quarantineTime), and discoverDeletedNodes, run every gcCheckPeriod,
// takes it out as soon as those 40 s are over: the check at first sighting
// + 2 periods (= 40 s) confirms the node gone, not the one after.
func TestPodsOfAGoneNodeAreDeletedAfterTheQuarantine(t *testing.T) {
	c := apitest.New(7, 3, 1, nil)
	var gc *Controller
	c.AddHost("kcm", func(h *sim.Host) {
		cl := client.New(h, client.Config{User: "system:kube-controller-manager", Servers: c.Servers})
		ctx := controllers.NewContext(h, cl, nil)
		gc = New(ctx, Config{})
		gc.Run()
		ctx.Pods.Run()
		ctx.Nodes.Run()
	})
	c.Settle()
	_, err := c.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "alive"}})
	require.NoError(t, err)
	for _, p := range []*model.Pod{pod("on-alive", "alive"), pod("on-gone", "gone")} {
		_, err := c.Create(p)
		require.NoError(t, err)
	}
	start := c.W.Now()
	var firstSeen, goneAt sim.Time
	for goneAt == 0 && c.W.Now().Sub(start) < 2*time.Minute {
		c.Run(time.Second)
		if at, ok := gc.missing["gone"]; ok && firstSeen == 0 {
			firstSeen = at
		}
		if _, err := c.Get(model.ResourcePodsName, "default", "on-gone"); client.IsNotFound(err) {
			goneAt = c.W.Now()
		}
	}
	require.NotZero(t, goneAt, "the pod of the gone node was never deleted")
	require.NotZero(t, firstSeen, "the collector never noted the node missing")
	// First seen missing at a check (within 20 s), deleted at the first
	// check 40 s or more later.
	require.GreaterOrEqual(t, goneAt.Sub(start), 40*time.Second)
	require.LessOrEqual(t, goneAt.Sub(start), 85*time.Second)
	// Deleted at the check that ends the quarantine (first sighting +
	// 40 s): the quorum GET, the status update, the delete and this loop's
	// one-second polling take a few seconds, far less than the 20 s period
	// to the next check.
	require.GreaterOrEqual(t, goneAt.Sub(firstSeen), DefaultQuarantineTime)
	require.Less(t, goneAt.Sub(firstSeen), DefaultQuarantineTime+5*time.Second,
		"the pods were not deleted at the check that ends the 40 s quarantine")
	_, err = c.Get(model.ResourcePodsName, "default", "on-alive")
	require.NoError(t, err, "a pod of an existing node was deleted")
}

// TestStopBeforeRunNeverCollects: a collector whose stop comes before it
// runs (kube-controller-manager shutting down while starting controllers)
// stops cleanly and never deletes anything. As
// kubernetes/kubernetes pkg/controller/podgc/gc_controller.go, func Run:
// with its context already done, wait.UntilWithContext never calls gc.
func TestStopBeforeRunNeverCollects(t *testing.T) {
	c := apitest.New(7, 3, 1, nil)
	c.AddHost("kcm", func(h *sim.Host) {
		cl := client.New(h, client.Config{User: "system:kube-controller-manager", Servers: c.Servers})
		ctx := controllers.NewContext(h, cl, nil)
		gc := New(ctx, Config{})
		gc.Stop()
		gc.Run()
		ctx.Pods.Run()
		ctx.Nodes.Run()
	})
	c.Settle()
	_, err := c.Create(pod("on-gone", "gone"))
	require.NoError(t, err)
	c.Run(2 * time.Minute)
	_, err = c.Get(model.ResourcePodsName, "default", "on-gone")
	require.NoError(t, err, "a stopped collector deleted a pod")
}

// TestControllerDeletesKnowsTheCollector: controller-deletes judges the
// collector with its real quarantine and threshold, the ones it runs with.
func TestControllerDeletesKnowsTheCollector(t *testing.T) {
	require.Equal(t, DefaultQuarantineTime, checks.DefaultPodGCQuarantine)
	require.Equal(t, DefaultTerminatedPodThreshold, checks.DefaultTerminatedPodThreshold)
	require.Equal(t, TaintNodeOutOfService, "node.kubernetes.io/out-of-service")
}
