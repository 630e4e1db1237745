package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPodConditions(t *testing.T) {
	var st PodStatus
	assert.True(t, SetPodCondition(&st, PodCondition{Type: PodReady, Status: ConditionFalse, LastTransitionTime: 10}))
	assert.False(t, IsPodReady(&Pod{Status: st}))
	assert.False(t, SetPodCondition(&st, PodCondition{Type: PodReady, Status: ConditionFalse, LastTransitionTime: 20}),
		"same status: nothing changes, not even the transition time")
	_, c := GetPodCondition(&st, PodReady)
	assert.Equal(t, Time(10), c.LastTransitionTime)
	assert.True(t, SetPodCondition(&st, PodCondition{Type: PodReady, Status: ConditionFalse, Reason: "ProbeFailed", LastTransitionTime: 25}))
	_, c = GetPodCondition(&st, PodReady)
	assert.Equal(t, Time(10), c.LastTransitionTime, "a reason change keeps the transition time")
	assert.True(t, SetPodCondition(&st, PodCondition{Type: PodReady, Status: ConditionTrue, LastTransitionTime: 30}))
	_, c = GetPodCondition(&st, PodReady)
	assert.Equal(t, Time(30), c.LastTransitionTime)
	pod := &Pod{Status: st}
	assert.True(t, IsPodReady(pod))
	assert.True(t, SetPodCondition(&pod.Status, PodCondition{Type: PodScheduled, Status: ConditionTrue}))
	assert.Len(t, pod.Status.Conditions, 2)
	i, c := GetPodCondition(&pod.Status, ContainersReady)
	assert.Equal(t, -1, i)
	assert.Nil(t, c)

	// available: ready for minReadySeconds (30 ns + 5 s)
	assert.True(t, IsPodAvailable(pod, 0, 30))
	assert.False(t, IsPodAvailable(pod, 5, Time(4e9)))
	assert.False(t, IsPodAvailable(pod, 5, Time(5e9+30)), "exactly minReadySeconds is not yet available")
	assert.True(t, IsPodAvailable(pod, 5, Time(5e9+31)))
	assert.False(t, IsPodAvailable(&Pod{}, 0, 100))
}

func TestNodeConditions(t *testing.T) {
	n := &Node{}
	assert.False(t, IsNodeReady(n))
	assert.Equal(t, ConditionUnknown, NodeReadyStatus(n))
	assert.True(t, SetNodeCondition(&n.Status, NodeCondition{Type: NodeReady, Status: ConditionTrue, LastHeartbeatTime: 1, LastTransitionTime: 1}))
	assert.True(t, IsNodeReady(n))
	assert.True(t, SetNodeCondition(&n.Status, NodeCondition{Type: NodeReady, Status: ConditionTrue, LastHeartbeatTime: 2, LastTransitionTime: 2}),
		"a heartbeat is a change")
	_, c := GetNodeCondition(&n.Status, NodeReady)
	assert.Equal(t, Time(2), c.LastHeartbeatTime)
	assert.Equal(t, Time(1), c.LastTransitionTime)
	assert.False(t, SetNodeCondition(&n.Status, NodeCondition{Type: NodeReady, Status: ConditionTrue, LastHeartbeatTime: 2, LastTransitionTime: 9}))
	assert.True(t, SetNodeCondition(&n.Status, NodeCondition{Type: NodeReady, Status: ConditionUnknown, LastHeartbeatTime: 2, LastTransitionTime: 50, Reason: "NodeStatusUnknown"}))
	_, c = GetNodeCondition(&n.Status, NodeReady)
	assert.Equal(t, Time(50), c.LastTransitionTime)
	assert.Equal(t, ConditionUnknown, NodeReadyStatus(n))
	assert.False(t, IsNodeReady(n))
}

func TestOwnerReferences(t *testing.T) {
	rs := validRS()
	rs.UID = "rs-uid"
	ref := NewControllerRef(rs, KindReplicaSet)
	assert.Equal(t, &OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d9f", UID: "rs-uid",
		Controller: Ptr(true), BlockOwnerDeletion: Ptr(true)}, ref)

	pod := validPod()
	assert.Nil(t, GetControllerOf(pod))
	pod.OwnerReferences = []OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "n", UID: "n-uid"}, *ref}
	got := GetControllerOf(pod)
	require.NotNil(t, got)
	assert.Equal(t, ref, got)
	*got.Controller = false
	assert.True(t, *pod.OwnerReferences[1].Controller, "GetControllerOf returns a copy")
	assert.True(t, IsControlledBy(pod, rs))
	other := rs.DeepCopy()
	other.UID = "recreated"
	assert.False(t, IsControlledBy(pod, other), "a recreated owner of the same name is another owner")
	assert.Empty(t, errorStrings(Validate(pod)))
}

func TestFilterActivePods(t *testing.T) {
	running := &Pod{ObjectMeta: ObjectMeta{Name: "a"}, Status: PodStatus{Phase: PodRunning}}
	pending := &Pod{ObjectMeta: ObjectMeta{Name: "b"}}
	done := &Pod{ObjectMeta: ObjectMeta{Name: "c"}, Status: PodStatus{Phase: PodSucceeded}}
	failed := &Pod{ObjectMeta: ObjectMeta{Name: "d"}, Status: PodStatus{Phase: PodFailed}}
	deleting := &Pod{ObjectMeta: ObjectMeta{Name: "e", DeletionTimestamp: Ptr(Time(5))}, Status: PodStatus{Phase: PodRunning}}
	assert.Equal(t, []*Pod{running, pending}, FilterActivePods([]*Pod{running, done, pending, failed, deleting}))
	assert.Nil(t, FilterActivePods(nil))
}

func TestRegistry(t *testing.T) {
	var names []string
	for _, r := range Resources() {
		names = append(names, r.Name)
		obj := r.New()
		assert.Equal(t, r.Kind, obj.Kind())
		back, ok := ResourceForKind(r.Kind)
		assert.True(t, ok)
		assert.Equal(t, r.Name, back.Name)
		back, ok = ResourceForName(r.Name)
		assert.True(t, ok)
		assert.Equal(t, r.Kind, back.Kind)
		assert.Equal(t, r.Kind, ResourceOf(obj).Kind)
	}
	assert.Equal(t, []string{"pods", "nodes", "replicasets", "deployments", "leases", "services", "endpointslices"}, names)
	pods, _ := ResourceForKind(KindPod)
	nodes, _ := ResourceForKind(KindNode)
	deps, _ := ResourceForKind(KindDeployment)
	leases, _ := ResourceForKind(KindLease)
	assert.True(t, pods.Namespaced)
	assert.False(t, nodes.Namespaced, "nodes are cluster-scoped")
	assert.Equal(t, "v1", pods.APIVersion())
	assert.Equal(t, "apps/v1", deps.APIVersion())
	assert.Equal(t, "coordination.k8s.io/v1", leases.APIVersion())
	svcs, _ := ResourceForKind(KindService)
	slices, _ := ResourceForKind(KindEndpointSlice)
	assert.Equal(t, "v1", svcs.APIVersion())
	assert.True(t, svcs.Namespaced)
	assert.Equal(t, "discovery.k8s.io/v1", slices.APIVersion())
	assert.True(t, slices.Namespaced)
	_, ok := ResourceForKind("Secret")
	assert.False(t, ok)

	assert.Equal(t, "default/web-1", KeyOf(validPod()).String())
	assert.Equal(t, "node-1", KeyOf(validNode()).String())
}

func TestTimeHelpers(t *testing.T) {
	assert.Equal(t, "12.000345000s", Time(12000345000).String())
	assert.Equal(t, "-0.000000005s", Time(-5).String())
	assert.Equal(t, Time(2e9), Time(1e9).Add(1e9))
	assert.True(t, Time(1).Before(2))
	assert.True(t, Time(3).After(2))
	assert.Equal(t, 7, Deref(nil, 7))
	assert.Equal(t, 3, Deref(Ptr(3), 7))
}
