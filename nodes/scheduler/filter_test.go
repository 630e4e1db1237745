package scheduler

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// testNodeInfo is a Ready node with allocatable cpu/memory/pods and the
// given pods on it.
func testNodeInfo(cpu, mem, pods string, on ...*model.Pod) *nodeInfo {
	n := &nodeInfo{name: "n", node: &model.Node{ObjectMeta: model.ObjectMeta{Name: "n"}, Status: model.NodeStatus{
		Allocatable: model.ResourceListOf("cpu", cpu, "memory", mem, "pods", pods),
		Conditions:  []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}}}}
	for _, p := range on {
		n.addPod(p)
	}
	return n
}

// requestPod is a pod with one container requesting pairs (none if empty).
func requestPod(pairs ...string) *model.Pod {
	c := model.Container{Name: "c"}
	if len(pairs) > 0 {
		c.Resources.Requests = model.ResourceListOf(pairs...)
	}
	return &model.Pod{Spec: model.PodSpec{Containers: []model.Container{c}}}
}

func TestFitsRequest(t *testing.T) {
	tests := []struct {
		name string
		node *nodeInfo
		pod  *model.Pod
		want []string
	}{
		{"fits", testNodeInfo("2", "4Gi", "10", requestPod("cpu", "1")), requestPod("cpu", "1", "memory", "4Gi"), nil},
		{"cpu short", testNodeInfo("2", "4Gi", "10", requestPod("cpu", "1500m")), requestPod("cpu", "600m"), []string{"Insufficient cpu"}},
		{"cpu and memory short", testNodeInfo("1", "1Gi", "10"), requestPod("cpu", "2", "memory", "2Gi"),
			[]string{"Insufficient cpu", "Insufficient memory"}},
		{"pods full", testNodeInfo("2", "4Gi", "1", requestPod()), requestPod(), []string{"Too many pods"}},
		{"no requests fit a full cpu", testNodeInfo("1", "1Gi", "10", requestPod("cpu", "1")), requestPod(), nil},
		{"other resources by name", testNodeInfo("1", "1Gi", "10"), requestPod("example.com/gpu", "1"), []string{"Insufficient example.com/gpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, filterNode(tt.pod, model.PodRequests(tt.pod), tt.node))
		})
	}
}

func TestFilterStopsAtTheFirstPlugin(t *testing.T) {
	n := testNodeInfo("1", "1Gi", "10")
	n.node.Spec.Unschedulable = true
	n.node.Spec.Taints = []model.Taint{{Key: "k", Value: "v", Effect: model.TaintEffectNoSchedule}}
	n.node.Status.Conditions[0].Status = model.ConditionUnknown
	pod := requestPod("cpu", "4")
	require.Equal(t, []string{reasonUnschedulable}, filterNode(pod, model.PodRequests(pod), n))
	pod.Spec.Tolerations = []model.Toleration{{Key: model.TaintNodeUnschedulable, Operator: model.TolerationOpExists}}
	require.Equal(t, []string{"node(s) had untolerated taint {k: v}"}, filterNode(pod, model.PodRequests(pod), n))
	pod.Spec.Tolerations = append(pod.Spec.Tolerations, model.Toleration{Key: "k", Value: "v"})
	require.Equal(t, []string{reasonNotReady}, filterNode(pod, model.PodRequests(pod), n))
	n.node.Status.Conditions[0].Status = model.ConditionTrue
	require.Equal(t, []string{"Insufficient cpu"}, filterNode(pod, model.PodRequests(pod), n))
}

func TestFitErrorMessage(t *testing.T) {
	require.Equal(t, "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.",
		fitErrorMessage(3, map[string]int{"node(s) had untolerated taint {node.kubernetes.io/not-ready: }": 2, "Insufficient cpu": 1}))
}

func TestLeastAllocatedScore(t *testing.T) {
	tests := []struct {
		name string
		node *nodeInfo
		pod  *model.Pod
		want int64
	}{
		// cpu (4000-1000)*100/4000 = 75, memory (8-1)*100/8 = 87.
		{"empty node", testNodeInfo("4", "8Gi", "10"), requestPod("cpu", "1", "memory", "1Gi"), 81},
		// A pod without requests counts 100m and 200Mi: cpu 97, memory
		// (1024-200)*100/1024 = 80.
		{"non-zero defaults", testNodeInfo("4", "1Gi", "10"), requestPod(), 88},
		// Requests beyond allocatable score 0 for that resource; memory
		// (8-4)*100/8 = 50 (an explicit 0 request counts 0).
		{"overcommitted cpu", testNodeInfo("1", "8Gi", "10", requestPod("cpu", "1", "memory", "0")), requestPod("cpu", "1", "memory", "4Gi"), 25},
		{"no allocatable", testNodeInfo("0", "0", "10"), requestPod(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, leastAllocatedScore(tt.pod, tt.node))
		})
	}
}
