package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// testCluster is an apitest world with the scheduler's trace events
// recorded.
type testCluster struct {
	*apitest.Cluster
	t       *testing.T
	bound   []spoketrace.Bound
	leading []leadingAt
}

// leadingAt is a Leading event and its virtual time.
type leadingAt struct {
	spoketrace.Leading
	at sim.Time
}

// newTestCluster builds members etcd members and one API server (mod
// adjusts its config) and settles it.
func newTestCluster(t *testing.T, seed uint64, members int, mod func(*apiserver.Config)) *testCluster {
	t.Helper()
	tc := &testCluster{Cluster: apitest.New(seed, members, 1, mod), t: t}
	tc.W.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *spoketrace.Bound:
			tc.bound = append(tc.bound, *d)
		case *spoketrace.Leading:
			tc.leading = append(tc.leading, leadingAt{Leading: *d, at: e.At})
		}
	})
	tc.Settle()
	return tc
}

// addScheduler adds a scheduler host called name.
func (tc *testCluster) addScheduler(name string, mod func(*Config)) *sim.Host {
	cfg := Config{Servers: tc.Servers}
	if mod != nil {
		mod(&cfg)
	}
	return tc.AddHost(name, Boot(cfg))
}

// scheduler returns the exposed scheduler of host name (nil when down).
func (tc *testCluster) scheduler(name string) *Scheduler {
	s, _ := tc.Host(name).Exposed(ExposeName).(*Scheduler)
	return s
}

// nodeSpec describes a test node.
type nodeSpec struct {
	name          string
	cpu, memory   string
	pods          string
	notReady      bool
	unschedulable bool
	taints        []model.Taint
}

// createNode creates a node as admin, with allocatable and a Ready
// condition as a kubelet would report them.
func (tc *testCluster) createNode(ns nodeSpec) {
	tc.t.Helper()
	pods := ns.pods
	if pods == "" {
		pods = "110"
	}
	ready := model.ConditionTrue
	if ns.notReady {
		ready = model.ConditionFalse
	}
	node := &model.Node{ObjectMeta: model.ObjectMeta{Name: ns.name},
		Spec: model.NodeSpec{Unschedulable: ns.unschedulable, Taints: ns.taints},
		Status: model.NodeStatus{
			Capacity:   model.ResourceListOf("cpu", ns.cpu, "memory", ns.memory, "pods", pods),
			Conditions: []model.NodeCondition{{Type: model.NodeReady, Status: ready}},
		}}
	_, err := tc.Create(node)
	require.NoError(tc.t, err)
}

// podSpec describes a test pod.
type podSpec struct {
	name        string
	cpu, memory string // requests; empty for none
	tolerations []model.Toleration
	scheduler   string
}

// createPod creates a pending pod in "default" as admin.
func (tc *testCluster) createPod(ps podSpec) {
	tc.t.Helper()
	req := model.ResourceList{}
	if ps.cpu != "" {
		req[model.ResourceCPU] = model.MustParseQuantity(model.ResourceCPU, ps.cpu)
	}
	if ps.memory != "" {
		req[model.ResourceMemory] = model.MustParseQuantity(model.ResourceMemory, ps.memory)
	}
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{Name: ps.name, Namespace: "default"},
		Spec: model.PodSpec{SchedulerName: ps.scheduler, Tolerations: ps.tolerations,
			Containers: []model.Container{{Name: "c", Image: "app:1", Resources: model.ResourceRequirements{Requests: req}}}}}
	_, err := tc.Create(pod)
	require.NoError(tc.t, err)
}

// pods returns the stored pods by name (a quorum list).
func (tc *testCluster) pods() map[string]*model.Pod {
	tc.t.Helper()
	objs, err := tc.List(model.ResourcePodsName)
	require.NoError(tc.t, err)
	out := map[string]*model.Pod{}
	for _, o := range objs {
		p := o.(*model.Pod)
		out[p.Name] = p
	}
	return out
}

// nodeOf returns the node pod name is bound to ("" for none).
func (tc *testCluster) nodeOf(name string) string {
	tc.t.Helper()
	obj, err := tc.Get(model.ResourcePodsName, "default", name)
	require.NoError(tc.t, err)
	return obj.(*model.Pod).Spec.NodeName
}

// runUntilBound runs the world in 100 ms steps until every named pod is
// bound, for at most d, and returns the pods.
func (tc *testCluster) runUntilBound(d time.Duration, names ...string) map[string]*model.Pod {
	tc.t.Helper()
	deadline := tc.W.Now().Add(d)
	for {
		pods := tc.pods()
		all := true
		for _, n := range names {
			if p := pods[n]; p == nil || p.Spec.NodeName == "" {
				all = false
			}
		}
		if all {
			return pods
		}
		require.Less(tc.t, tc.W.Now(), deadline, "pods %v not all bound in %v", names, d)
		tc.Run(time.Second)
	}
}

// requireBoundOnce asserts that every stored bound pod got exactly one
// Bound event, and that every Bound of a pod that still exists names its
// UID and node.
func (tc *testCluster) requireBoundOnce() {
	tc.t.Helper()
	pods := tc.pods()
	count := map[string]int{}
	for _, b := range tc.bound {
		count[b.Pod]++
		p := pods[b.Pod[len("default/"):]]
		if p == nil {
			continue // deleted since
		}
		require.Equal(tc.t, string(p.UID), b.UID)
		require.Equal(tc.t, p.Spec.NodeName, b.Node)
	}
	for name, p := range pods {
		if p.Spec.NodeName != "" {
			require.Equal(tc.t, 1, count["default/"+name], "Bound events of %s", name)
		}
	}
}

// podScheduled returns pod's PodScheduled condition (nil for none).
func podScheduled(p *model.Pod) *model.PodCondition {
	_, c := model.GetPodCondition(&p.Status, model.PodScheduled)
	return c
}

// countByNode counts the pods on each node.
func countByNode(pods map[string]*model.Pod) map[string]int {
	out := map[string]int{}
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			out[p.Spec.NodeName]++
		}
	}
	return out
}
