package podgc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

// newGC starts a collector with cfg on a fresh cluster.
func newGC(t *testing.T, cfg Config) *apitest.Cluster {
	c := apitest.New(11, 3, 1, nil)
	c.AddHost("kcm", func(h *sim.Host) {
		cl := client.New(h, client.Config{User: "system:kube-controller-manager", Servers: c.Servers})
		ctx := controllers.NewContext(h, cl, nil)
		New(ctx, cfg).Run()
		ctx.Pods.Run()
		ctx.Nodes.Run()
	})
	c.Settle()
	return c
}

// setStatus writes obj's status as admin and waits for the answer.
func setStatus(t *testing.T, c *apitest.Cluster, obj model.Object) {
	done := false
	var err error
	c.Admin().Resource(model.ResourceOf(obj).Name, obj.GetObjectMeta().Namespace).UpdateStatus(obj,
		func(_ model.Object, e error) { done, err = true, e })
	for i := 0; i < 300 && !done; i++ {
		c.Run(100 * time.Millisecond)
	}
	require.True(t, done)
	require.NoError(t, err)
}

// createPod creates p, then gives it phase (and reason), as its kubelet
// would.
func createPod(t *testing.T, c *apitest.Cluster, p *model.Pod, phase model.PodPhase, reason string) {
	obj, err := c.Create(p)
	require.NoError(t, err)
	stored := obj.(*model.Pod).DeepCopy()
	stored.Status.Phase, stored.Status.Reason = phase, reason
	setStatus(t, c, stored)
}

func exists(t *testing.T, c *apitest.Cluster, name string) bool {
	_, err := c.Get(model.ResourcePodsName, "default", name)
	if client.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

// TestTerminatedPodsBeyondTheThreshold: with more terminated (Succeeded or
// Failed) pods than --terminated-pod-gc-threshold, the excess is deleted,
// evicted pods first, then the oldest by creation time; running pods do
// not count. As kubernetes/kubernetes pkg/controller/podgc/gc_controller.go,
// gcTerminated with isPodTerminated and byEvictionAndCreationTimestamp.
func TestTerminatedPodsBeyondTheThreshold(t *testing.T) {
	c := newGC(t, Config{TerminatedPodThreshold: 2})
	_, err := c.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n"}})
	require.NoError(t, err)
	phases := []struct {
		name   string
		phase  model.PodPhase
		reason string
	}{
		{"p0", model.PodSucceeded, ""}, {"live", model.PodRunning, ""}, {"p1", model.PodFailed, ""},
		{"p2", model.PodSucceeded, ""}, {"p3", model.PodFailed, "Evicted"}, {"p4", model.PodSucceeded, ""},
	}
	for _, p := range phases {
		createPod(t, c, pod(p.name, "n"), p.phase, p.reason)
		c.Run(time.Second) // distinct creation timestamps
	}
	c.Run(DefaultCheckPeriod + 5*time.Second)
	got := map[string]bool{}
	for _, p := range phases {
		got[p.name] = exists(t, c, p.name)
	}
	require.Equal(t, map[string]bool{"p3": false, "p0": false, "p1": false, "live": true, "p2": true, "p4": true}, got,
		"5 terminated, threshold 2: the evicted one, then the two oldest")
}

// TestTerminatedPodThresholdDefault: the threshold defaults to
// kube-controller-manager's --terminated-pod-gc-threshold, 12500, and a
// negative one disables the collection (the real flag's 0: gc calls
// gcTerminated only "if gcc.terminatedPodThreshold > 0").
func TestTerminatedPodThresholdDefault(t *testing.T) {
	require.Equal(t, 12500, New(nil, Config{}).cfg.TerminatedPodThreshold)
	c := newGC(t, Config{TerminatedPodThreshold: -1})
	_, err := c.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n"}})
	require.NoError(t, err)
	createPod(t, c, pod("done", "n"), model.PodSucceeded, "")
	c.Run(DefaultCheckPeriod + 5*time.Second)
	require.True(t, exists(t, c, "done"))
}

// TestTerminatingPodsOnOutOfServiceNodes: a pod being deleted is
// force-deleted (marked Failed, grace period 0) when its node is not Ready
// and carries the node.kubernetes.io/out-of-service taint; not when the node
// is Ready, nor when it lacks the taint. As gc_controller.go,
// gcTerminating: "!nodeutil.IsNodeReady(node) &&
// taints.TaintKeyExists(node.Spec.Taints, v1.TaintNodeOutOfService)".
func TestTerminatingPodsOnOutOfServiceNodes(t *testing.T) {
	c := newGC(t, Config{})
	oos := []model.Taint{{Key: TaintNodeOutOfService, Effect: model.TaintEffectNoExecute}}
	for _, n := range []struct {
		name   string
		ready  bool
		taints []model.Taint
	}{{"down", false, oos}, {"ready-tainted", true, oos}, {"down-untainted", false, nil}} {
		obj, err := c.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: n.name}, Spec: model.NodeSpec{Taints: n.taints}})
		require.NoError(t, err)
		if n.ready {
			node := obj.(*model.Node).DeepCopy()
			node.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}
			setStatus(t, c, node)
		}
		createPod(t, c, pod("on-"+n.name, n.name), model.PodRunning, "")
	}
	for _, name := range []string{"on-down", "on-ready-tainted", "on-down-untainted"} {
		done := false
		c.Admin().Pods("default").Delete(name, client.DeleteOptions{}, func(model.Object, error) { done = true })
		for i := 0; i < 300 && !done; i++ {
			c.Run(100 * time.Millisecond)
		}
		obj, err := c.Get(model.ResourcePodsName, "default", name)
		require.NoError(t, err, "a bound pod is deleted gracefully")
		require.NotNil(t, obj.(*model.Pod).DeletionTimestamp)
	}
	c.Run(DefaultCheckPeriod + 5*time.Second)
	require.False(t, exists(t, c, "on-down"), "terminating on a NotReady out-of-service node: force-deleted")
	require.True(t, exists(t, c, "on-ready-tainted"))
	require.True(t, exists(t, c, "on-down-untainted"))
}
