package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

func TestCreateGetUpdateConflict(t *testing.T) {
	tw := newWorld(t, 1, 1, nil)
	created := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
	assert.NotEmpty(t, created.UID)
	assert.NotEmpty(t, created.ResourceVersion)
	assert.Equal(t, int64(1), created.Generation)
	assert.Equal(t, model.PodPending, created.Status.Phase)
	require.Len(t, created.Spec.Tolerations, 2, "default tolerations added")

	dup := tw.do(0, create(newPod("a")))
	assert.Equal(t, 409, dup.Status.Code)
	assert.Equal(t, apiwire.ReasonAlreadyExists, dup.Status.Reason)
	assert.Equal(t, `pods "a" already exists`, dup.Status.Message)

	got := tw.must(0, getPod("a")).Object.(*model.Pod)
	assert.Equal(t, created.ResourceVersion, got.ResourceVersion)
	assert.Equal(t, created.UID, got.UID)

	v1 := got.DeepCopy()
	v1.Spec.Containers[0].Image = "nginx:2"
	updated := tw.must(0, update("admin", apiwire.VerbUpdate, v1)).Object.(*model.Pod)
	assert.NotEqual(t, got.ResourceVersion, updated.ResourceVersion)
	assert.Equal(t, int64(2), updated.Generation)

	stale := got.DeepCopy()
	stale.Spec.Containers[0].Image = "nginx:3"
	resp := tw.do(0, update("admin", apiwire.VerbUpdate, stale))
	assert.Equal(t, 409, resp.Status.Code)
	assert.Equal(t, apiwire.ReasonConflict, resp.Status.Reason)
	assert.Equal(t, `Operation cannot be fulfilled on pods "a": the object has been modified; please apply your changes to the latest version and try again`, resp.Status.Message)

	// An empty resourceVersion is unconditional.
	blind := got.DeepCopy()
	blind.ResourceVersion = ""
	blind.Spec.Containers[0].Image = "nginx:4"
	out := tw.must(0, update("admin", apiwire.VerbUpdate, blind)).Object.(*model.Pod)
	assert.Equal(t, "nginx:4", out.Spec.Containers[0].Image)

	missing := tw.do(0, getPod("nope"))
	assert.Equal(t, 404, missing.Status.Code)
	assert.Equal(t, `pods "nope" not found`, missing.Status.Message)
}

func TestUpdateStatusAndUpdateSplit(t *testing.T) {
	tw := newWorld(t, 2, 1, nil)
	p := tw.must(0, create(newPod("a"))).Object.(*model.Pod)

	// update-status takes only status.
	s := p.DeepCopy()
	s.Status.Phase = model.PodRunning
	s.Spec.Containers[0].Image = "changed"
	s.Labels = map[string]string{"x": "y"}
	out := tw.must(0, update("admin", apiwire.VerbUpdateStatus, s)).Object.(*model.Pod)
	assert.Equal(t, model.PodRunning, out.Status.Phase)
	assert.Equal(t, "nginx:1", out.Spec.Containers[0].Image)
	assert.Equal(t, "web", out.Labels["app"])

	// update ignores status.
	u := out.DeepCopy()
	u.Status.Phase = model.PodFailed
	u.Labels["tier"] = "front"
	out2 := tw.must(0, update("admin", apiwire.VerbUpdate, u)).Object.(*model.Pod)
	assert.Equal(t, model.PodRunning, out2.Status.Phase)
	assert.Equal(t, "front", out2.Labels["tier"])
	assert.Equal(t, int64(1), out2.Generation, "metadata changes keep the generation")

	// A no-op update writes nothing.
	same := tw.must(0, update("admin", apiwire.VerbUpdate, out2.DeepCopy())).Object.(*model.Pod)
	assert.Equal(t, out2.ResourceVersion, same.ResourceVersion)
}

func TestAdmissionRejectsInvalid(t *testing.T) {
	tw := newWorld(t, 3, 1, nil)
	bad := newPod("Bad_Name")
	resp := tw.do(0, create(bad))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Equal(t, apiwire.ReasonInvalid, resp.Status.Reason)
	assert.Contains(t, resp.Status.Message, `Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"`)

	noContainers := newPod("empty")
	noContainers.Spec.Containers = nil
	resp = tw.do(0, create(noContainers))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Contains(t, resp.Status.Message, "spec.containers: Required value")

	p := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
	u := p.DeepCopy()
	u.Spec.RestartPolicy = model.RestartPolicyNever
	resp = tw.do(0, update("admin", apiwire.VerbUpdate, u))
	assert.Equal(t, 422, resp.Status.Code, resp.Status.Message)
	assert.Empty(t, tw.admitsFor("update", "default/a"), "a rejected write is never admitted")
}

func TestPatchMergesAndRetries(t *testing.T) {
	tw := newWorld(t, 4, 1, nil)
	p := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
	patch := func(body string) *apiwire.Request {
		return &apiwire.Request{User: "admin", Verb: apiwire.VerbPatch, Resource: "pods", Namespace: "default", Name: "a", Patch: []byte(body)}
	}
	out := tw.must(0, patch(`{"metadata":{"labels":{"tier":"db","app":null}}}`)).Object.(*model.Pod)
	assert.Equal(t, map[string]string{"tier": "db"}, out.Labels)
	assert.Equal(t, p.UID, out.UID)

	// Concurrent patches of the same object all land: the server retries.
	var waits []func() *apiwire.Response
	for _, k := range []string{"a", "b", "c", "d"} {
		waits = append(waits, tw.send(0, patch(`{"metadata":{"annotations":{"`+k+`":"1"}}}`)))
	}
	for _, w := range waits {
		require.True(t, w().Status.OK())
	}
	final := tw.must(0, getPod("a")).Object.(*model.Pod)
	assert.Len(t, final.Annotations, 4)

	// A resourceVersion in the patch is a precondition.
	resp := tw.do(0, patch(`{"metadata":{"resourceVersion":"`+p.ResourceVersion+`","labels":{"x":"y"}}}`))
	assert.Equal(t, 409, resp.Status.Code)

	// Malformed patch.
	assert.Equal(t, 400, tw.do(0, patch(`{`)).Status.Code)
	// Invalid result.
	assert.Equal(t, 422, tw.do(0, patch(`{"spec":{"restartPolicy":"Never"}}`)).Status.Code)
}

func TestDeletePreconditionsAndGrace(t *testing.T) {
	tw := newWorld(t, 5, 1, nil)
	p := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
	del := func(name string, pre *apiwire.Preconditions, grace *int64) *apiwire.Request {
		return &apiwire.Request{User: "admin", Verb: apiwire.VerbDelete, Resource: "pods", Namespace: "default", Name: name,
			Preconditions: pre, GracePeriodSeconds: grace}
	}
	resp := tw.do(0, del("a", &apiwire.Preconditions{UID: "other"}, nil))
	assert.Equal(t, 409, resp.Status.Code)
	assert.Contains(t, resp.Status.Message, "Precondition failed: UID in precondition: other")
	resp = tw.do(0, del("a", &apiwire.Preconditions{ResourceVersion: "1"}, nil))
	assert.Equal(t, 409, resp.Status.Code)

	// An unscheduled pod goes at once.
	tw.must(0, del("a", &apiwire.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}, nil))
	assert.Equal(t, 404, tw.do(0, getPod("a")).Status.Code)

	// A bound pod is only marked; the kubelet deletes it with grace 0.
	tw.must(0, create(newPod("b")))
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbBind, Resource: "pods", Namespace: "default", Name: "b", NodeName: "n1"})
	marked := tw.must(0, del("b", nil, nil)).Object.(*model.Pod)
	require.NotNil(t, marked.DeletionTimestamp)
	assert.Equal(t, int64(30), *marked.DeletionGracePeriodSeconds)
	still := tw.must(0, getPod("b")).Object.(*model.Pod)
	assert.NotNil(t, still.DeletionTimestamp)
	tw.must(0, &apiwire.Request{User: "system:node:n1", Verb: apiwire.VerbDelete, Resource: "pods", Namespace: "default", Name: "b",
		GracePeriodSeconds: model.Ptr(int64(0)), Preconditions: &apiwire.Preconditions{UID: still.UID}})
	assert.Equal(t, 404, tw.do(0, getPod("b")).Status.Code)

	// Non-pods are deleted at once.
	tw.must(0, create(newNode("n1")))
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbDelete, Resource: "nodes", Name: "n1"})
	assert.Equal(t, 404, tw.do(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbGet, Resource: "nodes", Name: "n1"}).Status.Code)
}

func TestBindOnce(t *testing.T) {
	tw := newWorld(t, 6, 1, nil)
	tw.must(0, create(newPod("a")))
	bind := func(node string) *apiwire.Request {
		return &apiwire.Request{User: "system:kube-scheduler", Verb: apiwire.VerbBind, Resource: "pods", Namespace: "default", Name: "a", NodeName: node}
	}
	out := tw.must(0, bind("n1")).Object.(*model.Pod)
	assert.Equal(t, "n1", out.Spec.NodeName)
	_, cond := model.GetPodCondition(&out.Status, model.PodScheduled)
	require.NotNil(t, cond)
	resp := tw.do(0, bind("n2"))
	assert.Equal(t, 409, resp.Status.Code)
	assert.Equal(t, `Operation cannot be fulfilled on pods/binding "a": pod a is already assigned to node "n1"`, resp.Status.Message)
	a := tw.admitsFor("bind", "default/a")
	require.Len(t, a, 1)
	assert.Equal(t, "n1", a[0].NodeName)
	assert.Equal(t, "binding", a[0].Subresrc)
}

func TestLastWriteWinsAblation(t *testing.T) {
	tw := newWorld(t, 7, 1, func(c *Config) { c.Ablations = ablation.Of(ablation.LastWriteWins) })
	p := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
	v1 := p.DeepCopy()
	v1.Labels["v"] = "1"
	tw.must(0, update("admin", apiwire.VerbUpdate, v1))
	stale := p.DeepCopy()
	stale.Labels["v"] = "stale"
	out := tw.must(0, update("admin", apiwire.VerbUpdate, stale)).Object.(*model.Pod)
	assert.Equal(t, "stale", out.Labels["v"], "the stale update overwrote the newer one")
}

// TestDuplicateDeliveryServedOnce: a request the fabric delivers twice is
// served once, as HTTP over TCP reads it once: an update conditional on a
// resourceVersion is not answered 409 by its own copy, and is written once.
func TestDuplicateDeliveryServedOnce(t *testing.T) {
	tw := newWorld(t, 9, 1, nil)
	created := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
	spec := tw.w.Network().Link(tw.client.ID(), tw.servers[0].ID())
	spec.Dup = 1
	tw.w.Network().SetLink(tw.client.ID(), tw.servers[0].ID(), spec)
	before := len(tw.admitsFor("update", "default/a"))
	v1 := created.DeepCopy()
	v1.Spec.Containers[0].Image = "nginx:2"
	resp := tw.must(0, update("admin", apiwire.VerbUpdate, v1))
	tw.run(time.Second)
	assert.NotEqual(t, created.ResourceVersion, resp.Object.GetObjectMeta().ResourceVersion)
	assert.Len(t, tw.admitsFor("update", "default/a"), before+1, "the copy is not served")
	// A new request (a client's retry) is served again.
	dup := tw.do(0, update("admin", apiwire.VerbUpdate, v1))
	assert.Equal(t, 409, dup.Status.Code)
}

// TestLeaseUpdateNeedsResourceVersion: a Lease's strategy does not
// AllowUnconditionalUpdate (kubernetes
// pkg/registry/coordination/lease/strategy.go), so the generic registry's
// Update refuses one without a resourceVersion with 422 Invalid
// (k8s.io/apiserver pkg/registry/generic/registry/store.go), while a pod,
// whose strategy allows it, is updated unconditionally.
func TestLeaseUpdateNeedsResourceVersion(t *testing.T) {
	tw := newWorld(t, 3, 1, nil)
	l := tw.must(0, create(&model.Lease{ObjectMeta: model.ObjectMeta{Name: "l", Namespace: "default"},
		Spec: model.LeaseSpec{HolderIdentity: model.Ptr("a")}})).Object.(*model.Lease)
	blind := l.DeepCopy()
	blind.ResourceVersion = ""
	blind.Spec.HolderIdentity = model.Ptr("b")
	resp := tw.do(0, update("admin", apiwire.VerbUpdate, blind))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Equal(t, apiwire.ReasonInvalid, resp.Status.Reason)
	assert.Contains(t, resp.Status.Message, "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update")

	with := l.DeepCopy()
	with.Spec.HolderIdentity = model.Ptr("b")
	out := tw.must(0, update("admin", apiwire.VerbUpdate, with)).Object.(*model.Lease)
	assert.Equal(t, "b", *out.Spec.HolderIdentity)
}

// TestDefaultTolerationSecondsFlags: the DefaultTolerationSeconds plugin
// gives a pod created without tolerations of its own the seconds of
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds (300 each unless set), and
// leaves a pod's own toleration of a taint alone.
func TestDefaultTolerationSecondsFlags(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		notReady, unreachable  int64
		wantNotReady, wantUnrc int64
	}{
		{"defaults", 0, 0, 300, 300},
		{"lowered", 30, 20, 30, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newWorld(t, 1, 1, func(c *Config) {
				c.DefaultNotReadyTolerationSeconds, c.DefaultUnreachableTolerationSeconds = tc.notReady, tc.unreachable
			})
			got := tw.must(0, create(newPod("a"))).Object.(*model.Pod).Spec.Tolerations
			require.Len(t, got, 2)
			assert.Equal(t, model.TaintNodeNotReady, got[0].Key)
			assert.Equal(t, tc.wantNotReady, *got[0].TolerationSeconds)
			assert.Equal(t, model.TaintNodeUnreachable, got[1].Key)
			assert.Equal(t, tc.wantUnrc, *got[1].TolerationSeconds)

			own := newPod("b")
			own.Spec.Tolerations = []model.Toleration{{Key: model.TaintNodeUnreachable, Operator: model.TolerationOpExists,
				Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(5))}}
			got = tw.must(0, create(own)).Object.(*model.Pod).Spec.Tolerations
			require.Len(t, got, 2)
			assert.Equal(t, int64(5), *got[0].TolerationSeconds, "the pod's own toleration stays")
			assert.Equal(t, model.TaintNodeNotReady, got[1].Key)
			assert.Equal(t, tc.wantNotReady, *got[1].TolerationSeconds)
		})
	}
}
