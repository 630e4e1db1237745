package endpointslice

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// TestEndpointsOfPods: which pods are endpoints and with what conditions
// (endpointsliceutil.ShouldPodBeInEndpoints, podToEndpoint): a pod with an
// IP that is not terminal is one, ready = Ready and not terminating,
// serving = Ready, terminating = deletionTimestamp set; a pod without an
// IP, a terminal pod, a pod of another app and a pod on a node the
// informer does not know are not.
func TestEndpointsOfPods(t *testing.T) {
	e := newEnv(t, 1, Config{})
	e.service("web", "web")
	e.pod("ready", "web", podState{node: "n1", ip: "10.244.1.2", ready: true})
	e.pod("unready", "web", podState{node: "n2", ip: "10.244.2.3"})
	e.pod("no-ip", "web", podState{node: "n1", ready: true, phase: model.PodPending})
	e.pod("succeeded", "web", podState{node: "n1", ip: "10.244.1.4", phase: model.PodSucceeded})
	e.pod("failed", "web", podState{node: "n1", ip: "10.244.1.5", phase: model.PodFailed})
	e.pod("other-app", "api", podState{node: "n1", ip: "10.244.1.6", ready: true})
	e.pod("lost-node", "web", podState{node: "n9", ip: "10.244.9.7", ready: true})
	e.pod("leaving", "web", podState{node: "n2", ip: "10.244.2.8", ready: true})
	e.pod("leaving-unready", "web", podState{node: "n2", ip: "10.244.2.9"})
	e.deletePod("leaving")
	e.deletePod("leaving-unready")
	e.Run(3 * time.Second)
	assert.Equal(t, []endpoint{
		{pod: "leaving", ip: "10.244.2.8", node: "n2", serving: true, terminating: true},
		{pod: "leaving-unready", ip: "10.244.2.9", node: "n2", terminating: true},
		{pod: "ready", ip: "10.244.1.2", node: "n1", ready: true, serving: true},
		{pod: "unready", ip: "10.244.2.3", node: "n2"},
	}, e.endpoints("web"))
}

// TestSliceShape: a slice is named "<service>-" plus a suffix, controlled
// by the Service, labelled with the Service's labels, its name and the
// controller's, IPv4, with the Service's ports resolved to the target
// port; endpoints name their pod.
func TestSliceShape(t *testing.T) {
	e := newEnv(t, 2, Config{})
	svc := e.service("web", "web")
	pod := e.pod("a", "web", podState{node: "n1", ip: "10.244.1.2", ready: true})
	e.Run(2 * time.Second)
	got := e.slices("web")
	require.Len(t, got, 1)
	s := got[0]
	assert.Regexp(t, `^web-[a-z0-9]{5}$`, s.Name)
	assert.Equal(t, map[string]string{"team": "a", model.LabelServiceName: "web", model.LabelManagedBy: model.ManagedByEndpointSliceController}, s.Labels)
	assert.Equal(t, []model.OwnerReference{*model.NewControllerRef(svc, model.KindService)}, s.OwnerReferences)
	assert.Equal(t, model.AddressTypeIPv4, s.AddressType)
	assert.Equal(t, []model.EndpointPort{{Name: model.Ptr("http"), Protocol: model.Ptr(model.ProtocolTCP), Port: model.Ptr[int32](8080)}}, s.Ports)
	require.Len(t, s.Endpoints, 1)
	assert.Equal(t, &model.ObjectReference{Kind: model.KindPod, Namespace: ns, Name: "a", UID: pod.UID}, s.Endpoints[0].TargetRef)
}

// TestPlaceholderThenReuse: a Service without pods has one empty slice;
// its first pods go into that slice (finalize turns the create into an
// update of the slice it would delete), and when they all go, the slice
// is emptied again rather than deleted.
func TestPlaceholderThenReuse(t *testing.T) {
	e := newEnv(t, 3, Config{})
	e.service("web", "web")
	e.Run(2 * time.Second)
	first := e.slices("web")
	require.Len(t, first, 1)
	assert.Empty(t, first[0].Endpoints)
	assert.Empty(t, first[0].Ports)

	e.pod("a", "web", podState{node: "n1", ip: "10.244.1.2", ready: true})
	e.Run(2 * time.Second)
	second := e.slices("web")
	require.Len(t, second, 1)
	assert.Equal(t, first[0].Name, second[0].Name, "the placeholder is reused")
	assert.Len(t, second[0].Endpoints, 1)

	e.setStatus(&model.Pod{ObjectMeta: model.ObjectMeta{Name: "a"}}, podState{node: "n1", ip: "10.244.1.2", phase: model.PodSucceeded})
	e.Run(2 * time.Second)
	third := e.slices("web")
	require.Len(t, third, 1)
	assert.Equal(t, first[0].Name, third[0].Name)
	assert.Empty(t, third[0].Endpoints)
	assert.Equal(t, 1, e.count("create"), "one slice was ever created")
	assert.Zero(t, e.count("delete"))
}

// TestSlicesOfAtMostMax: endpoints fill slices of at most
// MaxEndpointsPerSlice; a pod's readiness change updates its endpoint in
// its slice, and a pod's end removes it from its slice, each an update in
// place (reconcileByPortMapping keeps unchanged endpoints where they are).
func TestSlicesOfAtMostMax(t *testing.T) {
	e := newEnv(t, 4, Config{MaxEndpointsPerSlice: 3})
	e.service("web", "web")
	names := []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}
	for i, n := range names {
		e.pod(n, "web", podState{node: "n1", ip: "10.244.1." + string(rune('2'+i)), ready: true})
	}
	e.Run(3 * time.Second)
	before := e.slices("web")
	var sizes []int
	where := map[string]string{}
	for _, s := range before {
		sizes = append(sizes, len(s.Endpoints))
		for _, ep := range s.Endpoints {
			where[ep.TargetRef.Name] = s.Name
		}
	}
	assert.ElementsMatch(t, []int{3, 3, 1}, sizes)
	creates := e.count("create")

	e.setStatus(&model.Pod{ObjectMeta: model.ObjectMeta{Name: "p1"}}, podState{node: "n1", ip: "10.244.1.3"})
	e.setStatus(&model.Pod{ObjectMeta: model.ObjectMeta{Name: "p4"}}, podState{node: "n1", ip: "10.244.1.6", phase: model.PodFailed})
	e.Run(3 * time.Second)
	after := e.slices("web")
	require.Len(t, after, 3)
	for _, s := range after {
		for _, ep := range s.Endpoints {
			assert.Equal(t, where[ep.TargetRef.Name], s.Name, "%s stays in its slice", ep.TargetRef.Name)
			assert.Equal(t, ep.TargetRef.Name != "p1", *ep.Conditions.Ready, ep.TargetRef.Name)
		}
	}
	assert.Len(t, e.endpoints("web"), 6)
	assert.Equal(t, creates, e.count("create"), "no slice is created again")
	assert.Zero(t, e.count("delete"))
}

// TestServiceDeletionLeavesSlices: the controller forgets a deleted
// Service and deletes none of its slices; they name it as their
// controller, for the garbage collector.
func TestServiceDeletionLeavesSlices(t *testing.T) {
	e := newEnv(t, 5, Config{})
	e.service("web", "web")
	e.pod("a", "web", podState{node: "n1", ip: "10.244.1.2", ready: true})
	e.Run(2 * time.Second)
	require.Len(t, e.slices("web"), 1)
	_, err := e.call(func(done client.ObjectCallback) { e.Admin().Services(ns).Delete("web", client.DeleteOptions{}, done) })
	require.NoError(t, err)
	e.Run(3 * time.Second)
	assert.Len(t, e.slices("web"), 1)
	assert.Zero(t, e.count("delete"))
	assert.Empty(t, e.ctl.tracker.byService, "the tracker forgot the Service")
}

// TestForeignSliceChangeIsUndone: a managed slice changed by someone else
// (a newer generation than the controller wrote) brings its Service back
// into the queue a second later, and the controller writes it back.
func TestForeignSliceChangeIsUndone(t *testing.T) {
	e := newEnv(t, 6, Config{})
	e.service("web", "web")
	e.pod("a", "web", podState{node: "n1", ip: "10.244.1.2", ready: true})
	e.Run(2 * time.Second)
	s := e.slices("web")[0]
	s.Endpoints[0].Conditions.Ready = model.Ptr(false)
	_, err := e.call(func(done client.ObjectCallback) { e.Admin().EndpointSlices(ns).Update(s, done) })
	require.NoError(t, err)
	e.Run(3 * time.Second)
	assert.Equal(t, []endpoint{{pod: "a", ip: "10.244.1.2", node: "n1", ready: true, serving: true}}, e.endpoints("web"))
}

// TestIgnoresReadinessAblation: with endpointslice-ignores-readiness,
// endpoints of pods that are not ready, or are being deleted, are ready.
func TestIgnoresReadinessAblation(t *testing.T) {
	e := newEnv(t, 7, Config{Ablations: ablation.Of(ablation.EndpointSliceIgnoresReadiness)})
	e.service("web", "web")
	e.pod("unready", "web", podState{node: "n1", ip: "10.244.1.2"})
	e.pod("leaving", "web", podState{node: "n1", ip: "10.244.1.3", ready: true})
	e.deletePod("leaving")
	e.Run(3 * time.Second)
	assert.Equal(t, []endpoint{
		{pod: "leaving", ip: "10.244.1.3", node: "n1", ready: true, serving: true, terminating: true},
		{pod: "unready", ip: "10.244.1.2", node: "n1", ready: true},
	}, e.endpoints("web"))
}

// TestDropsTerminatingAblation: with endpointslice-drops-terminating, a
// pod being deleted has no endpoint.
func TestDropsTerminatingAblation(t *testing.T) {
	e := newEnv(t, 8, Config{Ablations: ablation.Of(ablation.EndpointSliceDropsTerminating)})
	e.service("web", "web")
	e.pod("staying", "web", podState{node: "n1", ip: "10.244.1.2", ready: true})
	e.pod("leaving", "web", podState{node: "n1", ip: "10.244.1.3", ready: true})
	e.deletePod("leaving")
	e.Run(3 * time.Second)
	assert.Equal(t, []endpoint{{pod: "staying", ip: "10.244.1.2", node: "n1", ready: true, serving: true}}, e.endpoints("web"))
}

// TestServingIsReadyAblation: with
// endpointslice-serving-equals-ready-while-terminating, a ready pod being
// deleted is not serving.
func TestServingIsReadyAblation(t *testing.T) {
	e := newEnv(t, 9, Config{Ablations: ablation.Of(ablation.EndpointSliceServingIsReady)})
	e.service("web", "web")
	e.pod("staying", "web", podState{node: "n1", ip: "10.244.1.2", ready: true})
	e.pod("leaving", "web", podState{node: "n1", ip: "10.244.1.3", ready: true})
	e.deletePod("leaving")
	e.Run(3 * time.Second)
	assert.Equal(t, []endpoint{
		{pod: "leaving", ip: "10.244.1.3", node: "n1", terminating: true},
		{pod: "staying", ip: "10.244.1.2", node: "n1", ready: true, serving: true},
	}, e.endpoints("web"))
}

// TestLabelMove: a pod relabelled from one Service's selector to
// another's leaves the first Service's slices and joins the second's
// (GetServicesToUpdateOnPodChange syncs both); with
// endpointslice-ignores-label-moves it stays in the first too.
func TestLabelMove(t *testing.T) {
	a := endpoint{pod: "a", ip: "10.244.1.2", node: "n1", ready: true, serving: true}
	b := endpoint{pod: "b", ip: "10.244.1.3", node: "n1", ready: true, serving: true}
	for _, tc := range []struct {
		name string
		abl  ablation.Set
		blue []endpoint
	}{
		{"the real controller", ablation.Set{}, []endpoint{b}},
		{"endpointslice-ignores-label-moves", ablation.Of(ablation.EndpointSliceIgnoresLabelMoves), []endpoint{a, b}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 10, Config{Ablations: tc.abl})
			e.service("blue", "blue")
			e.service("green", "green")
			e.pod("a", "blue", podState{node: "n1", ip: "10.244.1.2", ready: true})
			e.pod("b", "blue", podState{node: "n1", ip: "10.244.1.3", ready: true})
			e.Run(3 * time.Second)
			require.Equal(t, []endpoint{a, b}, e.endpoints("blue"))
			e.relabel("a", "green")
			e.Run(3 * time.Second)
			assert.Equal(t, tc.blue, e.endpoints("blue"))
			assert.Equal(t, []endpoint{a}, e.endpoints("green"))
		})
	}
}

// TestValidateMaxEndpointsPerSlice: --max-endpoints-per-slice takes 1 to
// 1000, as kube-controller-manager's EndpointSliceControllerOptions.Validate
// (cmd/kube-controller-manager/app/options/endpointslicecontroller.go);
// 0 is kubesim's "the default".
func TestValidateMaxEndpointsPerSlice(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, ""}, {1, ""}, {3, ""}, {1000, ""},
		{-1, "max-endpoints-per-slice must not be less than 1, but got -1"},
		{1001, "max-endpoints-per-slice must not be more than 1000, but got 1001"},
	} {
		err := ValidateMaxEndpointsPerSlice(tc.n)
		if tc.want == "" {
			require.NoError(t, err, "%d", tc.n)
			continue
		}
		require.EqualError(t, err, tc.want)
	}
}
