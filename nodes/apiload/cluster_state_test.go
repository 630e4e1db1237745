package apiload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Objects of the tests: a ReplicaSet owned by a Deployment, its pod, and
// two nodes.
func testReplicaSet() *model.ReplicaSet {
	labels := map[string]string{"app": "web", PodTemplateHashLabel: "abc"}
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Namespace: "default", Name: "web-abc", UID: "rs-uid", Labels: labels,
			OwnerReferences: []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.KindDeployment, Name: "web",
				UID: "deploy-uid", Controller: model.Ptr(true)}}},
		Spec: model.ReplicaSetSpec{Replicas: model.Ptr(int32(2)), Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "app", Image: "web:1"}}}}},
	}
}

func testPod(name string, rs *model.ReplicaSet) *model.Pod {
	return &model.Pod{
		ObjectMeta: model.ObjectMeta{Namespace: "default", Name: name, UID: model.UID(name + "-uid"),
			Labels:          map[string]string{"app": "web", PodTemplateHashLabel: "abc"},
			OwnerReferences: []model.OwnerReference{*model.NewControllerRef(rs, model.KindReplicaSet)}},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "app", Image: "web:1"}, {Name: "side", Image: "side:1"}}},
	}
}

func readyPodStatus() model.PodStatus {
	return model.PodStatus{Phase: model.PodRunning,
		Conditions: []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue}},
		ContainerStatuses: []model.ContainerStatus{{Name: "app", Ready: true, RestartCount: 2},
			{Name: "side", Ready: true, RestartCount: 1}}}
}

func testNode(name string, ready model.ConditionStatus, taints ...model.Taint) *model.Node {
	n := &model.Node{ObjectMeta: model.ObjectMeta{Name: name}, Spec: model.NodeSpec{Taints: taints}}
	if ready != "" {
		n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: ready}}
	}
	return n
}

func testDeployment() *model.Deployment {
	labels := map[string]string{"app": "web"}
	return &model.Deployment{
		ObjectMeta: model.ObjectMeta{Namespace: "default", Name: "web", UID: "deploy-uid", Generation: 3},
		Spec: model.DeploymentSpec{Replicas: model.Ptr(int32(2)), Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "app", Image: "web:1"}}}}},
	}
}

func TestNewClusterState(t *testing.T) {
	rs := testReplicaSet()
	ready := testPod("web-abc-1", rs)
	ready.Spec.NodeName = "node-1"
	ready.Status = readyPodStatus()
	pending := testPod("web-abc-0", rs)
	pending.Status.Phase = model.PodPending
	pending.OwnerReferences[0].Controller = nil // an owner that is not the controller
	deleting := testPod("web-abc-2", rs)
	deleting.Spec.NodeName = "node-2"
	deleting.DeletionTimestamp = model.Ptr(model.Time(5 * time.Second))
	deleting.Status = readyPodStatus()
	deleting.Status.Conditions[0].Status = model.ConditionFalse

	rsTemplateOnly := testReplicaSet()
	rsTemplateOnly.Name, rsTemplateOnly.UID, rsTemplateOnly.OwnerReferences = "bare", "bare-uid", nil
	rsTemplateOnly.Labels = nil
	rsTemplateOnly.Spec.Replicas = nil
	rsTemplateOnly.DeletionTimestamp = model.Ptr(model.Time(time.Second))

	d := testDeployment()
	d.Status = model.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 1, AvailableReplicas: 2,
		Conditions: []model.DeploymentCondition{{Type: model.DeploymentAvailable, Status: model.ConditionTrue, Reason: "MinimumReplicasAvailable"},
			{Type: model.DeploymentProgressing, Status: model.ConditionTrue, Reason: "ReplicaSetUpdated"}}}

	n2 := testNode("node-2", "", model.Taint{Key: "node.kubernetes.io/unreachable", Effect: model.TaintEffectNoExecute},
		model.Taint{Key: "node.kubernetes.io/unreachable", Effect: model.TaintEffectNoSchedule})
	cs := NewClusterState("42",
		[]model.Object{deleting, ready, pending, testNode("stray", model.ConditionTrue)},
		[]model.Object{n2, testNode("node-1", model.ConditionTrue)},
		[]model.Object{rs, rsTemplateOnly},
		[]model.Object{d})

	require.Equal(t, &spoketrace.ClusterState{
		RV: "42",
		Pods: []spoketrace.PodState{
			{Key: "default/web-abc-0", UID: "web-abc-0-uid", Phase: "Pending", Template: "abc"},
			{Key: "default/web-abc-1", UID: "web-abc-1-uid", Owner: "rs-uid", Node: "node-1", Phase: "Running", Ready: true, Restarts: 3, Template: "abc"},
			{Key: "default/web-abc-2", UID: "web-abc-2-uid", Owner: "rs-uid", Node: "node-2", Phase: "Running", Deleting: true, Restarts: 3, Template: "abc"},
		},
		Nodes: []spoketrace.NodeState{
			{Name: "node-1", Ready: "True"},
			{Name: "node-2", Ready: "Unknown", Taints: []string{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"}},
		},
		ReplicaSets: []spoketrace.ReplicaSetState{
			{Key: "default/bare", UID: "bare-uid", Replicas: 1, Deleting: true, Template: "abc"},
			{Key: "default/web-abc", UID: "rs-uid", Owner: "deploy-uid", Replicas: 2, Template: "abc"},
		},
		Deployments: []spoketrace.DeploymentState{
			{Key: "default/web", UID: "deploy-uid", Replicas: 2, Generation: 3, ObservedGeneration: 2,
				UpdatedReplicas: 1, AvailableReplicas: 2, StatusReplicas: 3, Progressing: "ReplicaSetUpdated"},
		},
	}, cs)
}

// reporterWorld builds a cluster holding a node, a Deployment, its
// ReplicaSet and a ready pod of it, with the reporter host booted to
// report at `at`; it collects every ClusterState emitted.
func reporterWorld(t *testing.T, at time.Duration) (*apitest.Cluster, *[]spoketrace.ClusterState, *[]sim.Time) {
	c := apitest.New(1, 3, 2, nil)
	var states []spoketrace.ClusterState
	var times []sim.Time
	c.W.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*spoketrace.ClusterState); ok {
			states = append(states, *d)
			times = append(times, e.At)
		}
	})
	c.AddHost("reporter", BootClusterReporter(ClusterReporterConfig{Servers: c.Servers, At: at}))
	c.Settle()
	_, err := c.Create(testNode("node-1", model.ConditionTrue))
	require.NoError(t, err)
	d, err := c.Create(testDeployment())
	require.NoError(t, err)
	rs := testReplicaSet()
	rs.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(d, model.KindDeployment)}
	rsObj, err := c.Create(rs)
	require.NoError(t, err)
	pod := testPod("web-abc-1", rsObj.(*model.ReplicaSet))
	pod.Spec.NodeName = "node-1"
	podObj, err := c.Create(pod)
	require.NoError(t, err)
	p := podObj.(*model.Pod)
	p.Status = readyPodStatus()
	updated := false
	c.Admin().Pods("default").UpdateStatus(p, func(_ model.Object, err error) {
		require.NoError(t, err)
		updated = true
	})
	c.Run(2 * time.Second)
	require.True(t, updated)
	return c, &states, &times
}

func TestClusterReporter(t *testing.T) {
	t.Run("reports the quorum state once at its time", func(t *testing.T) {
		c, states, times := reporterWorld(t, 20*time.Second)
		c.Run(15 * time.Second)
		require.Len(t, *states, 1)
		require.GreaterOrEqual(t, (*times)[0], sim.Time(20*time.Second))
		cs := (*states)[0]
		require.NotEmpty(t, cs.RV)
		require.Len(t, cs.Pods, 1)
		require.Len(t, cs.ReplicaSets, 1)
		require.Len(t, cs.Deployments, 1)
		require.Equal(t, []spoketrace.NodeState{{Name: "node-1", Ready: "True"}}, cs.Nodes)
		pod, rs, d := cs.Pods[0], cs.ReplicaSets[0], cs.Deployments[0]
		require.Equal(t, rs.UID, pod.Owner, "the pod's owner is its ReplicaSet's UID")
		require.Equal(t, d.UID, rs.Owner, "the ReplicaSet's owner is its Deployment's UID")
		require.Equal(t, spoketrace.PodState{Key: "default/web-abc-1", UID: pod.UID, Owner: rs.UID, Node: "node-1",
			Phase: "Running", Ready: true, Restarts: 3, Template: "abc"}, pod)
		require.Equal(t, 2, rs.Replicas)
		require.Equal(t, int64(1), d.Generation)
	})
	t.Run("a list that fails is retried within two seconds", func(t *testing.T) {
		c, states, times := reporterWorld(t, 20*time.Second)
		reporter := c.Host("reporter")
		c.Run(20*time.Second - time.Duration(c.W.Now()) - 100*time.Millisecond)
		c.W.Inject(sim.Fault{Kind: sim.FaultIsolate, Targets: [][]string{{"reporter"}}, For: time.Second})
		c.Run(10 * time.Second)
		require.Len(t, *states, 1, "emitted after the isolation healed")
		require.Greater(t, (*times)[0], sim.Time(21*time.Second))
		require.Less(t, (*times)[0], sim.Time(23*time.Second))
		require.True(t, reporter.Up())
	})
	t.Run("a list that keeps failing is given up", func(t *testing.T) {
		c, states, _ := reporterWorld(t, 20*time.Second)
		c.Run(20*time.Second - time.Duration(c.W.Now()) - 100*time.Millisecond)
		c.W.Inject(sim.Fault{Kind: sim.FaultIsolate, Targets: [][]string{{"reporter"}}, For: 10 * time.Second})
		c.Run(20 * time.Second)
		require.Empty(t, *states)
	})
}
