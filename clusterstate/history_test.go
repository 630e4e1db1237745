package clusterstate_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// widgets is a namespaced custom kind, stored under
// /registry/example.com/widgets/<ns>/<name>.
var widgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Namespaced: true}

// tracer builds a trace of Apply events, one event position after
// another.
type tracer struct {
	t      *testing.T
	events []sim.Event
}

// apply adds member's Apply of rev at second sec.
func (tr *tracer) apply(member string, sec float64, rev int64, changes ...etcdtrace.Change) {
	tr.events = append(tr.events, sim.Event{Seq: uint64(len(tr.events)), At: sim.Time(sec * float64(time.Second)), Kind: sim.KindNode,
		Data: &etcdtrace.Apply{Member: member, Rev: rev, Changes: changes}})
}

// other adds an event that is not an Apply.
func (tr *tracer) other(sec float64) {
	tr.events = append(tr.events, sim.Event{Seq: uint64(len(tr.events)), At: sim.Time(sec * float64(time.Second)), Kind: sim.KindNode,
		Data: &etcdtrace.RaftState{Member: "etcd-1", Role: "leader"}})
}

// put is the change that stores obj under key at rev, as model.Encode
// writes it.
func (tr *tracer) put(key string, rev int64, obj model.Object) etcdtrace.Change {
	data, err := model.Encode(obj)
	require.NoError(tr.t, err)
	return etcdtrace.Change{Type: etcdtrace.ChangePut, Key: key, Value: string(data), ModRev: rev, CreateRev: rev, Version: 1}
}

func del(key string, rev int64) etcdtrace.Change {
	return etcdtrace.Change{Type: etcdtrace.ChangeDelete, Key: key, ModRev: rev}
}

func deployment(name string, labels map[string]string) *model.Deployment {
	return &model.Deployment{ObjectMeta: model.ObjectMeta{Namespace: "default", Name: name, Labels: labels},
		Spec: model.DeploymentSpec{Replicas: model.Ptr(int32(3))}}
}

func pod(ns, name string) *model.Pod {
	return &model.Pod{ObjectMeta: model.ObjectMeta{Namespace: ns, Name: name},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "app", Image: "nginx"}}}}
}

// widgetSpec is the Widgets' spec in these tests.
type widgetSpec struct {
	Replicas int    `json:"replicas"`
	Color    string `json:"color,omitempty"`
}

func widget(t *testing.T, ns, name string, spec widgetSpec) *model.CustomObject {
	w := model.NewCustomObject(widgets, ns, name)
	require.NoError(t, w.SetSpec(spec))
	return w
}

// sampleHistory is a History fed a run of three members:
//
//	rev 2 at 1 s: Deployment default/web {app: web}; etcd-2 and etcd-3 apply it later with other
//	              bytes (which a History must ignore)
//	rev 3 at 2 s: Pod default/web-1 and Node node-1, in one entry
//	rev 4 at 3 s: Deployment default/web {app: web, tier: front}; Widget prod/w1 {replicas: 2}
//	rev 5 at 4 s: Pod default/web-1 deleted
//	rev 6 at 5 s: a KV workload key (not an API object); then a compaction (no changes) at 5.5 s
//	rev 7 at 6 s: Pods a-b/y and a/z, Widget prod/w1 {replicas: 5}
//	rev 8 at 7 s: Deployment default/web deleted
func sampleHistory(t *testing.T) (*clusterstate.History, *tracer) {
	tr := &tracer{t: t}
	web1 := deployment("web", map[string]string{"app": "web"})
	tr.other(0.5)
	tr.apply("etcd-1", 1, 2, tr.put("/registry/deployments/default/web", 2, web1))
	stale := deployment("web", map[string]string{"app": "stale"})
	tr.apply("etcd-2", 1.1, 2, tr.put("/registry/deployments/default/web", 2, stale))
	tr.apply("etcd-1", 2, 3, tr.put("/registry/pods/default/web-1", 3, pod("default", "web-1")),
		tr.put("/registry/nodes/node-1", 3, &model.Node{ObjectMeta: model.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "a"}}}))
	tr.apply("etcd-3", 2.5, 2, tr.put("/registry/deployments/default/web", 2, stale))
	tr.apply("etcd-2", 2.6, 3, tr.put("/registry/pods/default/web-1", 3, pod("stale", "web-1")))
	tr.apply("etcd-2", 3, 4, tr.put("/registry/deployments/default/web", 4, deployment("web", map[string]string{"app": "web", "tier": "front"})),
		tr.put("/registry/example.com/widgets/prod/w1", 4, widget(t, "prod", "w1", widgetSpec{Replicas: 2})))
	tr.apply("etcd-2", 4, 5, del("/registry/pods/default/web-1", 5))
	tr.apply("etcd-2", 5, 6, etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "k1", Value: "v1", ModRev: 6, CreateRev: 6, Version: 1})
	tr.apply("etcd-2", 5.5, 6)
	tr.apply("etcd-1", 6, 7, tr.put("/registry/pods/a-b/y", 7, pod("a-b", "y")), tr.put("/registry/pods/a/z", 7, pod("a", "z")),
		tr.put("/registry/example.com/widgets/prod/w1", 7, widget(t, "prod", "w1", widgetSpec{Replicas: 5})))
	tr.apply("etcd-1", 7, 8, del("/registry/deployments/default/web", 8))
	tr.apply("etcd-3", 7.5, 8, del("/registry/deployments/default/web", 8))
	h := clusterstate.New()
	for i := range tr.events {
		h.Observe(&tr.events[i])
	}
	return h, tr
}

// keys lists objs as "namespace/name" (or "name").
func keys(objs []model.Object) []string {
	var out []string
	for _, o := range objs {
		m := o.GetObjectMeta()
		if m.Namespace == "" {
			out = append(out, m.Name)
		} else {
			out = append(out, m.Namespace+"/"+m.Name)
		}
	}
	return out
}

// present lists every object of s as "resource:namespace/name", by
// resource, then key.
func present(s clusterstate.Snapshot) []string {
	var out []string
	for _, res := range s.Resources() {
		for _, k := range keys(s.List(res, "")) {
			out = append(out, res+":"+k)
		}
	}
	return out
}

func TestAtRevision(t *testing.T) {
	h, _ := sampleHistory(t)
	require.Equal(t, int64(8), h.Revision())
	for _, tc := range []struct {
		rev     int64
		wantRev int64
		wantAt  float64
		present []string
	}{
		{rev: 0, wantRev: 0, wantAt: 0, present: nil},
		{rev: 1, wantRev: 0, wantAt: 0, present: nil}, // before the first revision seen
		{rev: 2, wantRev: 2, wantAt: 1, present: []string{"deployments:default/web"}},
		{rev: 3, wantRev: 3, wantAt: 2, present: []string{"deployments:default/web", "nodes:node-1", "pods:default/web-1"}},
		{rev: 4, wantRev: 4, wantAt: 3, present: []string{"deployments:default/web", "nodes:node-1", "pods:default/web-1", "widgets:prod/w1"}},
		{rev: 5, wantRev: 5, wantAt: 4, present: []string{"deployments:default/web", "nodes:node-1", "widgets:prod/w1"}},
		{rev: 6, wantRev: 6, wantAt: 5, present: []string{"deployments:default/web", "nodes:node-1", "widgets:prod/w1"}},
		{rev: 7, wantRev: 7, wantAt: 6, present: []string{"deployments:default/web", "nodes:node-1", "pods:a/z", "pods:a-b/y", "widgets:prod/w1"}},
		{rev: 8, wantRev: 8, wantAt: 7, present: []string{"nodes:node-1", "pods:a/z", "pods:a-b/y", "widgets:prod/w1"}},
		{rev: 100, wantRev: 8, wantAt: 7, present: []string{"nodes:node-1", "pods:a/z", "pods:a-b/y", "widgets:prod/w1"}},
	} {
		t.Run(fmt.Sprint(tc.rev), func(t *testing.T) {
			s := h.AtRevision(tc.rev)
			require.Equal(t, tc.wantRev, s.Rev)
			require.Equal(t, sim.Time(tc.wantAt*float64(time.Second)), s.At)
			require.Equal(t, tc.present, present(s))
		})
	}
	require.Equal(t, h.AtRevision(8), h.Final())
	require.NoError(t, h.Err())
}

func TestAt(t *testing.T) {
	h, _ := sampleHistory(t)
	for _, tc := range []struct {
		sec     float64
		wantRev int64
	}{
		{0, 0},
		{0.999, 0},
		{1, 2}, // a revision counts from the instant it is first applied
		{1.5, 2},
		{2.99, 3},
		{3, 4},
		{5.7, 6}, // the compaction at 5.5 s makes no revision
		{6.5, 7},
		{7, 8},
		{1000, 8},
	} {
		t.Run(fmt.Sprint(tc.sec), func(t *testing.T) {
			s := h.At(sim.Time(tc.sec * float64(time.Second)))
			require.Equal(t, tc.wantRev, s.Rev)
			require.Equal(t, h.AtRevision(tc.wantRev), s)
		})
	}
}

// TestDuplicateAppliesIgnored: the other members' Applies of a revision
// already seen (here with other bytes) change nothing, and the state of a
// revision is its first member's.
func TestDuplicateAppliesIgnored(t *testing.T) {
	h, tr := sampleHistory(t)
	obj, ok := h.AtRevision(3).Get("deployments", "default", "web")
	require.True(t, ok)
	require.Equal(t, map[string]string{"app": "web"}, obj.GetObjectMeta().Labels)
	p, ok := h.AtRevision(3).Get("pods", "default", "web-1")
	require.True(t, ok)
	require.Equal(t, "default", p.GetObjectMeta().Namespace)
	_, ok = h.AtRevision(3).Get("pods", "stale", "web-1")
	require.False(t, ok)

	dels := h.Versions("deployments", "default", "web")
	require.Len(t, dels, 3, "two puts and one delete, whatever the other members applied")
	require.Equal(t, tr.events[len(tr.events)-2].Seq, dels[2].Seq, "the delete is at the first member's Apply")
}

func TestVersions(t *testing.T) {
	h, tr := sampleHistory(t)
	type want struct {
		rev     int64
		sec     float64
		deleted bool
		labels  map[string]string
	}
	for _, tc := range []struct {
		res, ns, name string
		want          []want
	}{
		{"deployments", "default", "web", []want{
			{rev: 2, sec: 1, labels: map[string]string{"app": "web"}},
			{rev: 4, sec: 3, labels: map[string]string{"app": "web", "tier": "front"}},
			{rev: 8, sec: 7, deleted: true},
		}},
		{"pods", "default", "web-1", []want{{rev: 3, sec: 2}, {rev: 5, sec: 4, deleted: true}}},
		{"nodes", "", "node-1", []want{{rev: 3, sec: 2, labels: map[string]string{"zone": "a"}}}},
		{"pods", "default", "never", nil},
		{"nodes", "default", "node-1", nil},
		{"k1", "", "", nil},
	} {
		t.Run(tc.res+"/"+tc.ns+"/"+tc.name, func(t *testing.T) {
			vs := h.Versions(tc.res, tc.ns, tc.name)
			require.Len(t, vs, len(tc.want))
			for i, w := range tc.want {
				v := vs[i]
				require.Equal(t, w.rev, v.Rev)
				require.Equal(t, sim.Time(w.sec*float64(time.Second)), v.At)
				require.Equal(t, tr.events[v.Seq].At, v.At, "Seq is the position of the Apply")
				require.Equal(t, w.deleted, v.Deleted)
				require.NoError(t, v.Err)
				require.Equal(t, &sim.Event{At: v.At, Seq: v.Seq}, v.Event())
				if w.deleted {
					require.Nil(t, v.Object)
					continue
				}
				require.Equal(t, tc.name, v.Object.GetObjectMeta().Name)
				require.Equal(t, fmt.Sprint(w.rev), v.Object.GetObjectMeta().ResourceVersion, "resourceVersion is the mod revision")
				require.Equal(t, w.labels, v.Object.GetObjectMeta().Labels)
			}
		})
	}
}

func TestList(t *testing.T) {
	h, _ := sampleHistory(t)
	s := h.Final()
	for _, tc := range []struct {
		res, ns string
		want    []string
	}{
		// by namespace, then name: "a" before "a-b", though "a-b/y" < "a/z" as strings
		{"pods", "", []string{"a/z", "a-b/y"}},
		{"pods", "a", []string{"a/z"}},
		{"pods", "a-b", []string{"a-b/y"}},
		{"pods", "default", nil},
		{"nodes", "", []string{"node-1"}},
		{"widgets", "", []string{"prod/w1"}},
		{"deployments", "", nil},
		{"services", "", nil},
	} {
		t.Run(tc.res+"/"+tc.ns, func(t *testing.T) {
			objs := s.List(tc.res, tc.ns)
			require.Equal(t, tc.want, keys(objs))
			for _, o := range objs {
				m := o.GetObjectMeta()
				vs := h.Versions(tc.res, m.Namespace, m.Name)
				require.Equal(t, fmt.Sprint(vs[len(vs)-1].Rev), m.ResourceVersion, "resourceVersion is the last change's revision")
			}
		})
	}
}

// TestNames: every object ever written, deleted ones too, sorted by
// namespace, then name, and filtered by namespace.
func TestNames(t *testing.T) {
	h, _ := sampleHistory(t)
	names := func(res, ns string) []string {
		var out []string
		for _, id := range h.Names(res, ns) {
			out = append(out, id.String())
		}
		return out
	}
	require.Equal(t, []string{"a/z", "a-b/y", "default/web-1"}, names("pods", ""))
	require.Equal(t, []string{"default/web-1"}, names("pods", "default"))
	require.Equal(t, []string{"default/web"}, names("deployments", ""))
	require.Equal(t, []string{"node-1"}, names("nodes", ""))
	require.Nil(t, names("services", ""))
}

// TestZeroSnapshot: a Snapshot not taken from a History is empty.
func TestZeroSnapshot(t *testing.T) {
	var s clusterstate.Snapshot
	_, ok := s.Get("pods", "default", "web-1")
	require.False(t, ok)
	require.Nil(t, s.List("pods", ""))
	require.Nil(t, s.Resources())
}

func TestGet(t *testing.T) {
	h, _ := sampleHistory(t)
	for _, tc := range []struct {
		name          string
		rev           int64
		res, ns, obj  string
		wantKind      string
		wantNamespace string
	}{
		{name: "cluster-scoped", rev: 8, res: "nodes", obj: "node-1", wantKind: "Node"},
		{name: "cluster-scoped in a namespace", rev: 8, res: "nodes", ns: "default", obj: "node-1"},
		{name: "namespaced", rev: 4, res: "deployments", ns: "default", obj: "web", wantKind: "Deployment", wantNamespace: "default"},
		{name: "namespaced without namespace", rev: 4, res: "deployments", obj: "web"},
		{name: "before creation", rev: 1, res: "deployments", ns: "default", obj: "web"},
		{name: "deleted", rev: 8, res: "deployments", ns: "default", obj: "web"},
		{name: "custom kind", rev: 4, res: "widgets", ns: "prod", obj: "w1", wantKind: "Widget", wantNamespace: "prod"},
		{name: "custom kind by group", rev: 4, res: "example.com", ns: "prod", obj: "w1"},
		{name: "unknown resource", rev: 8, res: "k1", obj: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, ok := h.AtRevision(tc.rev).Get(tc.res, tc.ns, tc.obj)
			if tc.wantKind == "" {
				require.False(t, ok)
				require.Nil(t, obj)
				return
			}
			require.True(t, ok)
			require.Equal(t, tc.wantKind, obj.Kind())
			require.Equal(t, tc.wantNamespace, obj.GetObjectMeta().Namespace)
			require.Equal(t, tc.obj, obj.GetObjectMeta().Name)
		})
	}
}

// TestCustomKind: a custom kind's objects decode as *model.CustomObject
// with their spec, version by version.
func TestCustomKind(t *testing.T) {
	h, _ := sampleHistory(t)
	for _, tc := range []struct {
		rev  int64
		want int
	}{{4, 2}, {6, 2}, {7, 5}} {
		obj, ok := h.AtRevision(tc.rev).Get("widgets", "prod", "w1")
		require.True(t, ok)
		w, ok := obj.(*model.CustomObject)
		require.True(t, ok, "a %T", obj)
		require.Equal(t, "example.com/v1", w.APIVersion)
		var spec widgetSpec
		require.NoError(t, w.DecodeSpec(&spec))
		require.Equal(t, tc.want, spec.Replicas, "rev %d", tc.rev)
	}
	require.Len(t, h.Versions("widgets", "prod", "w1"), 2)
}

// TestObjectsAreCopies: what a read returns is the caller's to modify.
func TestObjectsAreCopies(t *testing.T) {
	h, _ := sampleHistory(t)
	s := h.AtRevision(4)
	obj, ok := s.Get("deployments", "default", "web")
	require.True(t, ok)
	obj.GetObjectMeta().Labels["tier"] = "back"
	s.List("deployments", "")[0].GetObjectMeta().Labels["app"] = "changed"
	h.Versions("deployments", "default", "web")[1].Object.GetObjectMeta().Labels["app"] = "changed"
	again, ok := s.Get("deployments", "default", "web")
	require.True(t, ok)
	require.Equal(t, map[string]string{"app": "web", "tier": "front"}, again.GetObjectMeta().Labels)
}

// TestUndecodable: a stored value that does not decode is left out of
// reads and reported by Err (the first one), with where it was committed;
// Versions carries it; nothing panics.
func TestUndecodable(t *testing.T) {
	tr := &tracer{t: t}
	tr.apply("etcd-1", 1, 2, tr.put("/registry/pods/default/good", 2, pod("default", "good")),
		etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "/registry/pods/default/bad", Value: "not json", ModRev: 2, CreateRev: 2, Version: 1})
	tr.apply("etcd-1", 2, 3, etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "/registry/configmaps/default/odd",
		Value: `{"kind":"Nonesuch","apiVersion":"v1"}`, ModRev: 3, CreateRev: 3, Version: 1})
	h := clusterstate.New()
	for i := range tr.events {
		h.Observe(&tr.events[i])
	}
	require.NoError(t, h.Err(), "nothing is decoded before it is read")

	s := h.Final()
	require.Equal(t, []string{"default/good"}, keys(s.List("pods", "")))
	var derr *clusterstate.DecodeError
	require.True(t, errors.As(h.Err(), &derr))
	require.Equal(t, clusterstate.DecodeError{Resource: "pods", Namespace: "default", Name: "bad", Rev: 2, At: sim.Time(time.Second), Seq: 0, Err: derr.Err}, *derr)
	require.Error(t, derr.Err)
	require.Contains(t, h.Err().Error(), "pods default/bad at revision 2 does not decode")

	_, ok := s.Get("configmaps", "default", "odd")
	require.False(t, ok)
	require.Equal(t, derr, h.Err(), "Err keeps the first error")

	vs := h.Versions("configmaps", "default", "odd")
	require.Len(t, vs, 1)
	require.Nil(t, vs[0].Object)
	require.False(t, vs[0].Deleted)
	require.ErrorContains(t, vs[0].Err, `unknown kind "Nonesuch"`)
	require.Equal(t, []string{"configmaps", "pods"}, s.Resources(), "a resource whose objects do not decode is still listed")
}

// TestKeyLayout: objects are found under the keys the API servers write
// (namespaced, cluster-scoped, a custom kind's with its group first, of
// either scope), and any other key is ignored.
func TestKeyLayout(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want string // resource:namespace/name, or "" when ignored
	}{
		{"/registry/pods/default/p", "pods:default/p"},
		{"/registry/nodes/n1", "nodes:n1"},
		{"/registry/example.com/widgets/prod/w", "widgets:prod/w"},
		{"/registry/example.com/gadgets/g1", "gadgets:g1"},
		{"/registry/pods/default/a/b", ""},
		{"/registry/pods/default/", ""},
		{"/registry/pods//p", ""},
		{"/registry/pods/", ""},
		{"/registry/pods", ""},
		{"/registry//p", ""},
		{"/registry/example.com/widgets", ""},
		{"/registry/example.com/", ""},
		{"/other/pods/default/p", ""},
		{"k1", ""},
	} {
		t.Run(tc.key, func(t *testing.T) {
			h := clusterstate.New()
			h.Observe(&sim.Event{Kind: sim.KindNode, Data: &etcdtrace.Apply{Rev: 2, Changes: []etcdtrace.Change{
				{Type: etcdtrace.ChangePut, Key: tc.key, Value: "{}", ModRev: 2, CreateRev: 2, Version: 1}}}})
			require.Equal(t, int64(2), h.Revision(), "every revision counts, an API object's or not")
			var got []string
			for _, res := range h.Final().Resources() {
				for _, id := range h.Names(res, "") {
					got = append(got, res+":"+id.String())
				}
			}
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Equal(t, []string{tc.want}, got)
		})
	}
}
