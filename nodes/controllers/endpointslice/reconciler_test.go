package endpointslice

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

var testSvc = &model.Service{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: ns, UID: "svc-uid"},
	Spec: model.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.1.1",
		Ports: []model.ServicePort{{Port: 80, Protocol: model.ProtocolTCP, TargetPort: model.FromInt(80)}}}}

// readyPod is pod i, ready, on n1, with IP 10.0.0.i.
func readyPod(i int) *model.Pod {
	p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: "p" + strconv.Itoa(i), Namespace: ns, UID: model.UID("u" + strconv.Itoa(i))},
		Spec: model.PodSpec{NodeName: "n1"}, Status: model.PodStatus{Phase: model.PodRunning, PodIP: "10.0.0." + strconv.Itoa(i)}}
	model.SetPodCondition(&p.Status, model.PodCondition{Type: model.PodReady, Status: model.ConditionTrue})
	return p
}

func testReconciler(max int) *reconciler {
	return &reconciler{maxEndpointsPerSlice: max, nodeExists: func(n string) bool { return n == "n1" }}
}

// slice is an existing slice of testSvc named name holding the endpoints
// of pods idx, as the controller would have written them.
func slice(name string, idx ...int) *model.EndpointSlice {
	r := testReconciler(100)
	s := newEndpointSlice(testSvc, endpointPorts(testSvc, readyPod(0)))
	s.Name, s.GenerateName = name, ""
	for _, i := range idx {
		s.Endpoints = append(s.Endpoints, r.podToEndpoint(readyPod(i), testSvc))
	}
	return s
}

func pods(idx ...int) []*model.Pod {
	var out []*model.Pod
	for _, i := range idx {
		out = append(out, readyPod(i))
	}
	return out
}

// shape is a plan as a test reads it: per written slice, its name (""
// for a new one) and its pods' indexes.
type shape struct {
	name string
	pods []int
}

func shapes(ss []*model.EndpointSlice) []shape {
	var out []shape
	for _, s := range ss {
		sh := shape{name: s.Name}
		for _, ep := range s.Endpoints {
			i, _ := strconv.Atoi(ep.TargetRef.Name[1:])
			sh.pods = append(sh.pods, i)
		}
		out = append(out, sh)
	}
	return out
}

func names(ss []*model.EndpointSlice) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// TestReconcilePlacement follows reconcileByPortMapping and finalize
// (staging/src/k8s.io/endpointslice/reconciler.go) with at most 3
// endpoints a slice.
func TestReconcilePlacement(t *testing.T) {
	cases := []struct {
		name     string
		existing []*model.EndpointSlice
		pods     []*model.Pod
		create   []shape
		update   []shape
		del      []string
	}{
		{name: "nothing to do", existing: []*model.EndpointSlice{slice("a", 1, 2)}, pods: pods(1, 2)},
		{name: "new slices of at most max, in pod order", pods: pods(1, 2, 3, 4),
			create: []shape{{"", []int{1, 2, 3}}, {"", []int{4}}}},
		{name: "a removed endpoint leaves its slice, the others stay",
			existing: []*model.EndpointSlice{slice("a", 1, 2, 3), slice("b", 4, 5)}, pods: pods(1, 3, 4, 5),
			update: []shape{{"a", []int{1, 3}}}},
		{name: "a new endpoint fills a slice being updated first",
			existing: []*model.EndpointSlice{slice("a", 1, 2, 3), slice("b", 4, 5)}, pods: pods(1, 3, 4, 5, 6),
			update: []shape{{"a", []int{1, 3, 6}}}},
		{name: "the rest goes to the unchanged slice it fills best",
			existing: []*model.EndpointSlice{slice("a", 1), slice("b", 2, 3)}, pods: pods(1, 2, 3, 4),
			update: []shape{{"b", []int{2, 3, 4}}}},
		{name: "a slice left empty is deleted",
			existing: []*model.EndpointSlice{slice("a", 1), slice("b", 2)}, pods: pods(2),
			del: []string{"a"}},
		{name: "the last create takes the name of a slice it would delete",
			existing: []*model.EndpointSlice{slice("a", 1, 2, 3), slice("b", 4)}, pods: pods(1, 2, 3, 5, 6, 7, 8),
			update: []shape{{"b", []int{8}}}, create: []shape{{"", []int{5, 6, 7}}}},
		{name: "no pods: the last slice becomes the empty placeholder",
			existing: []*model.EndpointSlice{slice("a", 1)}, pods: nil,
			update: []shape{{"a", nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := testReconciler(3).reconcile(testSvc, c.pods, c.existing)
			assert.Equal(t, c.create, shapes(p.create), "create")
			assert.Equal(t, c.update, shapes(p.update), "update")
			assert.Equal(t, c.del, names(p.delete), "delete")
			assert.Empty(t, p.errs)
		})
	}
}

// TestReconcileForeignSlices: a slice with the Service's labels that
// another Service (an older one of the same name) controls, or of another
// address type, is deleted, never reused.
func TestReconcileForeignSlices(t *testing.T) {
	old := slice("old", 1)
	old.OwnerReferences[0].UID = "older-svc"
	six := slice("six", 1)
	six.AddressType = model.AddressTypeIPv6
	p := testReconciler(100).reconcile(testSvc, pods(1), []*model.EndpointSlice{old, six})
	assert.Equal(t, []shape{{"", []int{1}}}, shapes(p.create))
	assert.Empty(t, p.update)
	assert.Equal(t, []string{"old", "six"}, names(p.delete))
}

// TestReconcileLabelsAndPlaceholder: the Service's label change is carried
// to an unchanged slice; a Service with no endpoints and no slice gets one
// placeholder, and keeps it.
func TestReconcileLabelsAndPlaceholder(t *testing.T) {
	svc := testSvc.DeepCopy()
	svc.Labels = map[string]string{"tier": "front"}
	p := testReconciler(100).reconcile(svc, pods(1), []*model.EndpointSlice{slice("a", 1)})
	require.Len(t, p.update, 1)
	assert.Equal(t, "front", p.update[0].Labels["tier"])

	p = testReconciler(100).reconcile(testSvc, nil, nil)
	require.Len(t, p.create, 1)
	ph := p.create[0]
	assert.Empty(t, ph.Endpoints)
	assert.Empty(t, ph.Ports)
	ph.Name = "web-x"
	p = testReconciler(100).reconcile(testSvc, nil, []*model.EndpointSlice{ph})
	assert.True(t, p.empty(), "the placeholder stays as it is")
}

// TestReconcileSkipsUnknownNodes: a pod on a node the informer lacks is
// left out, and the sync reports it (to be retried).
func TestReconcileSkipsUnknownNodes(t *testing.T) {
	lost := readyPod(2)
	lost.Spec.NodeName = "n9"
	p := testReconciler(100).reconcile(testSvc, []*model.Pod{readyPod(1), lost}, nil)
	assert.Equal(t, []shape{{"", []int{1}}}, shapes(p.create))
	require.Len(t, p.errs, 1)
	assert.EqualError(t, p.errs[0], "skipping Pod p2 for Service default/web: Node n9 Not Found")
}

// TestDeletingServiceGetsNoNewSlices: finalize creates nothing for a
// Service being deleted.
func TestDeletingServiceGetsNoNewSlices(t *testing.T) {
	svc := testSvc.DeepCopy()
	svc.DeletionTimestamp = model.Ptr(model.Time(1))
	p := testReconciler(100).reconcile(svc, pods(1), nil)
	assert.Empty(t, p.create)
}

// TestTracker follows the EndpointSliceTracker: what the controller wrote
// is not a reason to sync; a newer generation, an unknown slice or an
// unexpected deletion is; a listing behind the controller's writes is
// stale.
func TestTracker(t *testing.T) {
	tr := newTracker()
	a := slice("a", 1)
	a.UID, a.Generation = "ua", 2
	assert.True(t, tr.shouldSync(a), "an unknown slice")
	tr.update(a)
	assert.False(t, tr.shouldSync(a), "the controller's own write")
	newer := a.DeepCopy()
	newer.Generation = 3
	assert.True(t, tr.shouldSync(newer), "someone else's write")

	key := "default/web"
	older := a.DeepCopy()
	older.Generation = 1
	assert.True(t, tr.staleSlices(key, []*model.EndpointSlice{older}), "listed at an older generation")
	assert.True(t, tr.staleSlices(key, nil), "a slice it wrote is missing")
	assert.False(t, tr.staleSlices(key, []*model.EndpointSlice{a}))

	tr.expectDeletion(a)
	assert.True(t, tr.staleSlices(key, []*model.EndpointSlice{a}), "a slice it deleted is still listed")
	assert.False(t, tr.staleSlices(key, nil))
	assert.True(t, tr.handleDeletion(a), "an expected deletion")
	assert.False(t, tr.has(a))

	tr.update(a)
	assert.False(t, tr.handleDeletion(a), "someone else deleted it")
	tr.update(a)
	tr.deleteService(key)
	assert.False(t, tr.has(a))
}
