package clusterstate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// widgetReplicas is docs/library.md's first invariant, as written there:
// at the end of the run, every Widget has a Deployment of its name,
// controlled by it, with the replicas its spec asks for.
func widgetReplicas(h *clusterstate.History, r *checks.Recorder) {
	s := h.Final()
	widgets := s.List("widgets", "") // every namespace, sorted by namespace and name
	if len(widgets) == 0 {
		r.Add(s.Event(), "no Widget to judge")
	}
	for _, obj := range widgets {
		w := obj.(*model.CustomObject)
		var spec struct {
			Replicas int32 `json:"replicas"`
		}
		if err := w.DecodeSpec(&spec); err != nil {
			r.Add(s.Event(), "Widget %s: %v", w.Name, err)
			continue
		}
		obj, ok := s.Get("deployments", w.Namespace, w.Name)
		if !ok {
			r.Add(s.Event(), "Widget %s has no Deployment", w.Name)
			continue
		}
		d := obj.(*model.Deployment)
		if ref := model.GetControllerOf(d); ref == nil || ref.UID != w.UID {
			r.Add(s.Event(), "Deployment %s is not controlled by its Widget", d.Name)
		}
		if got := model.Deref(d.Spec.Replicas, 1); got != spec.Replicas {
			r.Add(s.Event(), "Deployment %s has %d replicas, its Widget wants %d", d.Name, got, spec.Replicas)
		}
	}
}

// readyStaysReady is docs/library.md's second invariant, as written
// there: once a Widget's status says ready, no later version of it says
// otherwise.
func readyStaysReady(h *clusterstate.History, r *checks.Recorder) {
	for _, id := range h.Names("widgets", "") {
		ready := false
		for _, v := range h.Versions("widgets", id.Namespace, id.Name) {
			if v.Deleted {
				ready = false // a new Widget of that name starts afresh
				continue
			}
			var status struct {
				Ready bool `json:"ready"`
			}
			if w, ok := v.Object.(*model.CustomObject); ok && w.DecodeStatus(&status) == nil {
				if ready && !status.Ready {
					r.Add(v.Event(), "Widget %s is no longer ready at revision %d", id, v.Rev)
				}
				ready = ready || status.Ready
			}
		}
	}
}

// step is one revision of a hand-built run: the Widget alpha's spec
// replicas and status readiness (replicas 0: deleted), and its
// Deployment's replicas and controller UID (replicas 0: none).
type step struct {
	widgetReplicas int
	ready          bool
	depReplicas    int32
	depOwner       model.UID
}

// libraryRun feeds an invariant the run the steps describe, one revision
// a second, and returns its verdict.
func libraryRun(t *testing.T, judge clusterstate.Judge, steps ...step) checks.Result {
	tr := &tracer{t: t}
	const wkey, dkey = "/registry/example.com/widgets/default/alpha", "/registry/deployments/default/alpha"
	var had step
	for i, st := range steps {
		rev := int64(i + 2)
		var changes []etcdtrace.Change
		if had.widgetReplicas > 0 && st.widgetReplicas == 0 {
			changes = append(changes, del(wkey, rev))
		}
		if had.depReplicas > 0 && st.depReplicas == 0 {
			changes = append(changes, del(dkey, rev))
		}
		had = st
		if st.widgetReplicas > 0 {
			obj := widget(t, "default", "alpha", widgetSpec{Replicas: st.widgetReplicas})
			obj.UID = "u1"
			require.NoError(t, obj.SetStatus(map[string]bool{"ready": st.ready}))
			changes = append(changes, tr.put(wkey, rev, obj))
		}
		if st.depReplicas > 0 {
			dep := deployment("alpha", nil)
			dep.Spec.Replicas = model.Ptr(st.depReplicas)
			dep.OwnerReferences = []model.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "alpha", UID: st.depOwner, Controller: model.Ptr(true)}}
			changes = append(changes, tr.put(dkey, rev, dep))
		}
		tr.apply("etcd-1", float64(i+1), rev, changes...)
	}
	c := clusterstate.Invariant("library", judge)
	for i := range tr.events {
		c.Observe(&tr.events[i])
	}
	return c.Finish()
}

// TestLibraryInvariants: the invariants docs/library.md shows pass on a
// run that keeps them and fail, with the offense the page leads a reader
// to expect, on each way of breaking them.
func TestLibraryInvariants(t *testing.T) {
	for _, tc := range []struct {
		name  string
		judge clusterstate.Judge
		steps []step
		want  string // "" for a pass, else the first offense
	}{
		{"reconciled", widgetReplicas, []step{{3, false, 0, ""}, {3, true, 3, "u1"}}, ""},
		{"no Widget", widgetReplicas, nil, "no Widget to judge"},
		{"no Deployment", widgetReplicas, []step{{3, false, 0, ""}}, "Widget alpha has no Deployment"},
		{"wrong replicas", widgetReplicas, []step{{3, true, 3, "u1"}, {5, true, 3, "u1"}}, "Deployment alpha has 3 replicas, its Widget wants 5"},
		{"other controller", widgetReplicas, []step{{3, true, 3, "u0"}}, "Deployment alpha is not controlled by its Widget"},
		{"stays ready", readyStaysReady, []step{{3, false, 0, ""}, {3, true, 3, "u1"}, {4, true, 3, "u1"}}, ""},
		{"ready again after re-creation", readyStaysReady, []step{{3, true, 3, "u1"}, {0, false, 0, ""}, {3, false, 0, ""}}, ""},
		{"no longer ready", readyStaysReady, []step{{3, false, 0, ""}, {3, true, 3, "u1"}, {3, false, 3, "u1"}}, "Widget default/alpha is no longer ready at revision 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := libraryRun(t, tc.judge, tc.steps...)
			if tc.want == "" {
				require.True(t, res.OK, res.String())
				return
			}
			require.False(t, res.OK)
			require.Equal(t, tc.want, res.Offenses[0].What)
		})
	}
}
