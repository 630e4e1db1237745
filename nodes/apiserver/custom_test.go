package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// widgetSpec is the test kind's spec.
type widgetSpec struct {
	Size int `json:"size"`
}

// widgets is a namespaced custom kind with the status subresource and a
// validation that spec.size is positive; gadgets is cluster-scoped
// without it.
var (
	widgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets",
		Namespaced: true, StatusSubresource: true,
		Validate: func(obj, _ *model.CustomObject) model.ErrorList {
			var s widgetSpec
			if err := obj.DecodeSpec(&s); err != nil {
				return model.ErrorList{model.FieldInvalid("spec", obj.Spec.String(), err.Error())}
			}
			if s.Size <= 0 {
				return model.ErrorList{model.FieldInvalid("spec.size", s.Size, "must be positive")}
			}
			return nil
		}}
	gadgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1alpha1", Kind: "Gadget", Plural: "gadgets"}
)

// customWorld is newWorld with widgets and gadgets registered on every
// replica.
func customWorld(t *testing.T, seed uint64, servers int, mod func(*Config)) *world {
	reg := model.MustNewRegistry(widgets, gadgets)
	return newWorld(t, seed, servers, func(c *Config) {
		c.Resources = reg
		if mod != nil {
			mod(c)
		}
	})
}

// newWidget returns a widget of the given size in default.
func newWidget(t *testing.T, name string, size int) *model.CustomObject {
	w := model.NewCustomObject(widgets, "default", name)
	require.NoError(t, w.SetSpec(widgetSpec{Size: size}))
	return w
}

// widgetReq is an admin request on widgets.
func widgetReq(verb apiwire.Verb, name string, obj model.Object) *apiwire.Request {
	return &apiwire.Request{User: "admin", Verb: verb, Resource: "widgets", Namespace: "default", Name: name, Object: obj}
}

// TestCustomCRUDConflictAndStorage: a custom kind is created, read, updated
// and deleted with the built-in kinds' rules (409 AlreadyExists, 409
// Conflict on a stale resourceVersion, 404), is stored under
// /registry/<group>/<plural>/<ns>/<name> (k8s.io/apiserver
// pkg/server/options/etcd.go SimpleStorageFactory.ResourcePrefix, used by
// the apiextensions API server), and, as customResourceStrategy's
// AllowUnconditionalUpdate is false (k8s.io/apiextensions-apiserver
// pkg/registry/customresource/strategy.go), refuses an update without a
// resourceVersion with 422.
func TestCustomCRUDConflictAndStorage(t *testing.T) {
	tw := customWorld(t, 1, 1, nil)
	created := tw.must(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, "w1", 1))).Object.(*model.CustomObject)
	assert.NotEmpty(t, created.UID)
	assert.NotEmpty(t, created.ResourceVersion)
	assert.Equal(t, int64(1), created.Generation)
	assert.Equal(t, "Widget", created.Kind())
	assert.Equal(t, "example.com/v1", created.APIVersion)

	dup := tw.do(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, "w1", 1)))
	assert.Equal(t, 409, dup.Status.Code)
	assert.Equal(t, `widgets.example.com "w1" already exists`, dup.Status.Message)

	got := tw.must(0, widgetReq(apiwire.VerbGet, "w1", nil)).Object.(*model.CustomObject)
	assert.Equal(t, created.ResourceVersion, got.ResourceVersion)
	assert.JSONEq(t, `{"size":1}`, string(got.Spec))

	kv := tw.server(0).etcdValue(t, tw, "/registry/example.com/widgets/default/w1")
	require.NotNil(t, kv, "stored under the group-qualified prefix")
	assert.Contains(t, string(kv.Value), `"kind":"Widget","apiVersion":"example.com/v1"`)
	assert.Nil(t, tw.server(0).etcdValue(t, tw, "/registry/widgets/default/w1"))

	v2 := got.DeepCopy()
	require.NoError(t, v2.SetSpec(widgetSpec{Size: 2}))
	updated := tw.must(0, widgetReq(apiwire.VerbUpdate, "w1", v2)).Object.(*model.CustomObject)
	assert.Equal(t, int64(2), updated.Generation)

	stale := got.DeepCopy()
	require.NoError(t, stale.SetSpec(widgetSpec{Size: 3}))
	resp := tw.do(0, widgetReq(apiwire.VerbUpdate, "w1", stale))
	assert.Equal(t, 409, resp.Status.Code)
	assert.Equal(t, apiwire.ReasonConflict, resp.Status.Reason)
	assert.Equal(t, `Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again`, resp.Status.Message)

	blind := updated.DeepCopy()
	blind.ResourceVersion = ""
	resp = tw.do(0, widgetReq(apiwire.VerbUpdate, "w1", blind))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Contains(t, resp.Status.Message, "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update")

	tw.must(0, widgetReq(apiwire.VerbDelete, "w1", nil))
	missing := tw.do(0, widgetReq(apiwire.VerbGet, "w1", nil))
	assert.Equal(t, 404, missing.Status.Code)
	assert.Equal(t, `widgets.example.com "w1" not found`, missing.Status.Message)

	// A cluster-scoped kind: no namespace in its key.
	g := model.NewCustomObject(gadgets, "", "g1")
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbCreate, Resource: "gadgets", Object: g})
	require.NotNil(t, tw.server(0).etcdValue(t, tw, "/registry/example.com/gadgets/g1"))
}

// etcdValue reads key from etcd through the replica's client (nil when
// absent).
func (s *Server) etcdValue(t *testing.T, tw *world, key string) *mvcc.KeyValue {
	var out *mvcc.KeyValue
	done := false
	s.etcd.Get(key, etcd.GetOptions{}, func(r etcd.GetResult, err error) {
		require.NoError(t, err)
		if len(r.KVs) > 0 {
			out = &r.KVs[0]
		}
		done = true
	})
	for !done && tw.w.Step() {
	}
	return out
}

// TestCustomStatusSubresource: with the status subresource, create drops
// status and the main endpoint keeps the stored one (customResourceStrategy
// PrepareForCreate/PrepareForUpdate), update-status changes status only
// (statusStrategy.PrepareForUpdate copies the old object and sets status),
// and generation counts spec changes only. Without it (gadgets), status is
// an ordinary field whose change bumps generation, and update-status is
// 404.
func TestCustomStatusSubresource(t *testing.T) {
	tw := customWorld(t, 2, 1, nil)
	w := newWidget(t, "w1", 1)
	require.NoError(t, w.SetStatus(map[string]any{"ready": true}))
	created := tw.must(0, widgetReq(apiwire.VerbCreate, "", w)).Object.(*model.CustomObject)
	assert.Nil(t, created.Status, "create cannot set status")

	s := created.DeepCopy()
	require.NoError(t, s.SetStatus(map[string]any{"ready": true}))
	require.NoError(t, s.SetSpec(widgetSpec{Size: 9}))
	s.Labels = map[string]string{"x": "y"}
	out := tw.must(0, widgetReq(apiwire.VerbUpdateStatus, "w1", s)).Object.(*model.CustomObject)
	assert.JSONEq(t, `{"ready":true}`, string(out.Status))
	assert.JSONEq(t, `{"size":1}`, string(out.Spec), "update-status ignores spec")
	assert.Empty(t, out.Labels, "update-status ignores metadata")
	assert.Equal(t, int64(1), out.Generation, "a status change keeps the generation")

	u := out.DeepCopy()
	require.NoError(t, u.SetStatus(map[string]any{"ready": false}))
	u.Labels = map[string]string{"tier": "a"}
	out2 := tw.must(0, widgetReq(apiwire.VerbUpdate, "w1", u)).Object.(*model.CustomObject)
	assert.JSONEq(t, `{"ready":true}`, string(out2.Status), "update ignores status")
	assert.Equal(t, int64(1), out2.Generation, "metadata and status changes keep the generation")

	sp := out2.DeepCopy()
	require.NoError(t, sp.SetSpec(widgetSpec{Size: 4}))
	out3 := tw.must(0, widgetReq(apiwire.VerbUpdate, "w1", sp)).Object.(*model.CustomObject)
	assert.Equal(t, int64(2), out3.Generation, "a spec change bumps the generation")

	patched := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbPatch, Resource: "widgets", Namespace: "default",
		Name: "w1", Patch: []byte(`{"status":{"ready":false},"spec":{"size":5}}`)}).Object.(*model.CustomObject)
	assert.JSONEq(t, `{"ready":true}`, string(patched.Status), "a patch of the main endpoint ignores status")
	assert.JSONEq(t, `{"size":5}`, string(patched.Spec))
	assert.Equal(t, int64(3), patched.Generation)

	// Without the subresource.
	g := model.NewCustomObject(gadgets, "", "g1")
	require.NoError(t, g.SetStatus(map[string]any{"phase": "new"}))
	gReq := func(verb apiwire.Verb, obj model.Object) *apiwire.Request {
		return &apiwire.Request{User: "admin", Verb: verb, Resource: "gadgets", Name: "g1", Object: obj}
	}
	gc := tw.must(0, gReq(apiwire.VerbCreate, g)).Object.(*model.CustomObject)
	assert.JSONEq(t, `{"phase":"new"}`, string(gc.Status), "create keeps status without the subresource")
	g2 := gc.DeepCopy()
	require.NoError(t, g2.SetStatus(map[string]any{"phase": "old"}))
	gu := tw.must(0, gReq(apiwire.VerbUpdate, g2)).Object.(*model.CustomObject)
	assert.JSONEq(t, `{"phase":"old"}`, string(gu.Status))
	assert.Equal(t, int64(2), gu.Generation, "any change outside metadata bumps the generation")
	resp := tw.do(0, gReq(apiwire.VerbUpdateStatus, gu))
	assert.Equal(t, 404, resp.Status.Code)
}

// TestCustomValidation: the definition's Validate runs on create, update,
// patch and update-status after the metadata checks, and its errors are
// answered 422 with the group-qualified kind, as apierrors.NewInvalid
// prints it; a body of another apiVersion is 400, and a spec that is not
// JSON is 400.
func TestCustomValidation(t *testing.T) {
	tw := customWorld(t, 3, 1, nil)
	resp := tw.do(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, "w1", 0)))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Equal(t, apiwire.ReasonInvalid, resp.Status.Reason)
	assert.Equal(t, `Widget.example.com "w1" is invalid: spec.size: Invalid value: 0: must be positive`, resp.Status.Message)

	bad := newWidget(t, "Bad_Name", 1)
	resp = tw.do(0, widgetReq(apiwire.VerbCreate, "", bad))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Contains(t, resp.Status.Message, "metadata.name: Invalid value")

	ok := tw.must(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, "w1", 1))).Object.(*model.CustomObject)
	shrink := ok.DeepCopy()
	require.NoError(t, shrink.SetSpec(widgetSpec{Size: -1}))
	resp = tw.do(0, widgetReq(apiwire.VerbUpdate, "w1", shrink))
	assert.Equal(t, 422, resp.Status.Code)
	resp = tw.do(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbPatch, Resource: "widgets", Namespace: "default",
		Name: "w1", Patch: []byte(`{"spec":{"size":-2}}`)})
	assert.Equal(t, 422, resp.Status.Code)
	assert.Contains(t, resp.Status.Message, "spec.size: Invalid value: -2: must be positive")

	wrong := newWidget(t, "w2", 1)
	wrong.APIVersion = "example.com/v2"
	resp = tw.do(0, widgetReq(apiwire.VerbCreate, "", wrong))
	assert.Equal(t, 400, resp.Status.Code)
	assert.Contains(t, resp.Status.Message, "does not match the expected API version (example.com/v1)")

	junk := newWidget(t, "w3", 1)
	junk.Spec = model.RawJSON(`{"size":`)
	resp = tw.do(0, widgetReq(apiwire.VerbCreate, "", junk))
	assert.Equal(t, 400, resp.Status.Code)
}

// TestCustomWatchAnd410: a watch of a custom kind gets its events from the
// kind's own watch cache, and a resume from a revision whose successor has
// left the ring is 410 Gone (k8s.io/apiserver
// pkg/storage/cacher/watch_cache.go getAllEventsSinceLocked), unless the
// cache-no-410 ablation is on, which loses the event silently.
func TestCustomWatchAnd410(t *testing.T) {
	for _, no410 := range []bool{false, true} {
		tw := customWorld(t, 24, 1, func(c *Config) {
			c.WatchCacheMinCapacity, c.WatchCacheMaxCapacity = 1, 1
			c.Ablations = ablation.When(no410, ablation.CacheNo410)
		})
		live := tw.watchID()
		tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbWatch, Resource: "widgets", Namespace: "default",
			WatchPort: "watch", WatchID: live})
		a := tw.must(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, "a", 1))).Object
		tw.must(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, "b", 1)))
		tw.run(10 * time.Second)
		tw.must(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, "c", 1)))
		tw.run(time.Second)
		assert.Equal(t, []string{"ADDED a", "ADDED b", "ADDED c"}, kinds(distinctFrames(tw.eventsOf(live))))

		id := tw.watchID()
		tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbWatch, Resource: "widgets", Namespace: "default",
			ResourceVersion: a.GetObjectMeta().ResourceVersion, WatchPort: "watch", WatchID: id})
		tw.run(time.Second)
		evs := distinctFrames(tw.eventsOf(id))
		if !no410 {
			require.Equal(t, []string{"ERROR"}, kinds(evs))
			assert.Equal(t, 410, evs[0].Status.Code)
			assert.Equal(t, apiwire.ReasonGone, evs[0].Status.Reason)
		} else {
			assert.Equal(t, []string{"ADDED c"}, kinds(evs), "b's event is silently lost")
		}
	}
}

// TestCustomListPaging: a list of a custom kind pages with limit and
// continue, and a custom kind unknown to the registry is 404, as an
// unregistered resource is.
func TestCustomListPaging(t *testing.T) {
	tw := customWorld(t, 5, 1, nil)
	for _, n := range []string{"a", "b", "c"} {
		tw.must(0, widgetReq(apiwire.VerbCreate, "", newWidget(t, n, 1)))
	}
	page := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "widgets", Namespace: "default", Limit: 2})
	require.Len(t, page.Items, 2)
	require.NotEmpty(t, page.Continue)
	rest := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbList, Resource: "widgets", Namespace: "default",
		Limit: 2, Continue: page.Continue})
	require.Len(t, rest.Items, 1)
	assert.Equal(t, "c", rest.Items[0].GetObjectMeta().Name)
	assert.Equal(t, page.ResourceVersion, rest.ResourceVersion)

	plain := newWorld(t, 5, 1, nil)
	resp := plain.do(0, widgetReq(apiwire.VerbList, "", nil))
	assert.Equal(t, 404, resp.Status.Code, "a cluster without the registration does not serve the kind")
}
