package checks

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// rbDeployment is the Deployment api: replicas, RollingUpdate 25%/25% (as
// the API server defaults it: maxSurge 1 and maxUnavailable 1 for 4) or
// Recreate.
func rbDeployment(replicas int32, recreate bool) *model.Deployment {
	d := &model.Deployment{ObjectMeta: model.ObjectMeta{Name: "api", Namespace: "default", UID: "d1"},
		Spec: model.DeploymentSpec{Replicas: model.Ptr(replicas), Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
			Strategy: model.DeploymentStrategy{Type: model.RollingUpdateDeploymentStrategyType, RollingUpdate: &model.RollingUpdateDeployment{
				MaxSurge: model.Ptr(model.FromString("25%")), MaxUnavailable: model.Ptr(model.FromString("25%"))}}}}
	if recreate {
		d.Spec.Strategy = model.DeploymentStrategy{Type: model.RecreateDeploymentStrategyType}
	}
	return d
}

// rbRS is ReplicaSet api-<hash> of the Deployment d1, scaled for desired
// replicas: spec.replicas and status.availableReplicas as given.
func rbRS(hash string, replicas, avail, desired int32) *model.ReplicaSet {
	rs := &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: "api-" + hash, Namespace: "default", UID: model.UID("rs-" + hash),
		Annotations: map[string]string{desiredReplicasAnnotation: strconv.Itoa(int(desired))}},
		Spec:   model.ReplicaSetSpec{Replicas: model.Ptr(replicas), Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "api", "h": hash}}},
		Status: model.ReplicaSetStatus{AvailableReplicas: avail}}
	rs.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(rbDeployment(desired, false), model.KindDeployment)}
	return rs
}

// rbLeads makes cm-1 lead, its ReplicaSet informer list at revision rev.
func rbLeads(w *epWorld, ms int64) {
	w.steps = append(w.steps, at(ms, &spoketrace.Leading{Component: controllerManagerComponent, Identity: "cm-1", Leading: true}),
		at(ms, &apitrace.Relist{Informer: "cm-1/replicasets", Resource: "replicasets", RV: strconv.FormatInt(w.rev, 10)}))
}

// rbSends traces cm-1 sending a write of a ReplicaSet or Deployment.
func rbSends(w *epWorld, ms int64, verb, resource, key string) {
	w.steps = append(w.steps, at(ms, &spoketrace.LeaderWrite{Component: controllerManagerComponent, Identity: "cm-1", Verb: verb, Resource: resource, Key: key}))
}

// rbSees traces cm-1's ReplicaSet informer showing the last revision.
func rbSees(w *epWorld, ms int64, key string) {
	w.steps = append(w.steps, at(ms, &apitrace.InformerEvent{Informer: "cm-1/replicasets", Resource: "replicasets", Type: "update", Key: key,
		RV: strconv.FormatInt(w.rev, 10)}))
}

// rbRollout starts a rollout of api (4 replicas): the old ReplicaSet has
// its 4 replicas available, and the controller manager, which listed them,
// creates the new one with newSize replicas.
func rbRollout(w *epWorld, newSize int32) {
	w.put(1000, rbDeployment(4, false))
	w.put(1000, rbRS("old", 4, 4, 4))
	rbLeads(w, 2000)
	rbSends(w, 10000, "create", "replicasets", "default/api-new")
	w.put(10010, rbRS("new", newSize, 0, 4))
}

func TestRolloutBounds(t *testing.T) {
	cases := []struct {
		name  string
		build func(w *epWorld)
		fail  string // the first offense, or "" for a pass
	}{
		{"a rolling update within its bounds", func(w *epWorld) {
			rbRollout(w, 1)
			rbSends(w, 10100, "update", "replicasets", "default/api-old")
			w.put(10110, rbRS("old", 3, 4, 4))
			w.put(12000, rbRS("new", 1, 1, 4))
			rbSees(w, 12001, "default/api-new")
			w.put(12100, rbRS("new", 2, 1, 4))
			w.put(12200, rbRS("old", 2, 3, 4))
		}, ""},
		{"a new ReplicaSet created at full size", func(w *epWorld) {
			rbRollout(w, 4)
		}, "replicaset default/api-new created with 4 at revision 3: its Deployment's ReplicaSets then ask for at least 8 pods (with default/api-old 4, in any view since revision 2), above spec.replicas 4 + maxSurge 1"},
		{"a scale-up past the surge", func(w *epWorld) {
			rbRollout(w, 1)
			w.put(11000, rbRS("new", 3, 0, 4))
		}, "replicaset default/api-new scaled up from 1 to 3 at revision 4: its Deployment's ReplicaSets then ask for at least 7 pods (with default/api-old 4, in any view since revision 2), above spec.replicas 4 + maxSurge 1"},
		{"a scale-up whose view may have missed the other ReplicaSet's growth", func(w *epWorld) {
			w.put(1000, rbDeployment(4, false))
			w.put(1000, rbRS("old", 1, 1, 4))
			w.put(1000, rbRS("new", 1, 1, 4))
			w.put(2000, rbRS("old", 3, 1, 4)) // the view of the update below may predate it
			w.put(3000, rbRS("new", 3, 1, 4))
		}, ""},
		{"old replicas scaled down while the new ones are unavailable", func(w *epWorld) {
			rbRollout(w, 1)
			w.put(11000, rbRS("old", 1, 4, 4))
		}, "replicaset default/api-old scaled down from 4 to 1 at revision 4, removing 3 available replica(s): its Deployment had at most 4 available (in any view since revision 2), and spec.replicas 4 - maxUnavailable 1 must stay available"},
		{"only unavailable replicas scaled down", func(w *epWorld) {
			rbRollout(w, 1)
			w.put(11000, rbRS("old", 4, 2, 4))
			w.put(11100, rbRS("old", 2, 2, 4))
		}, ""},
		{"availability that dropped since the view excuses nothing it saw", func(w *epWorld) {
			rbRollout(w, 1)
			w.put(11000, rbRS("new", 1, 1, 4))
			w.put(11100, rbRS("old", 4, 4, 4)) // the controller reads this version
			w.put(11200, rbRS("new", 1, 0, 4)) // the new pod dies after
			w.put(11300, rbRS("old", 2, 4, 4))
		}, ""},
		{"a scaling event is not bounded by maxUnavailable", func(w *epWorld) {
			rbRollout(w, 1)
			w.put(11000, rbDeployment(2, false))
			w.put(11100, rbRS("old", 1, 4, 2))
		}, ""},
		{"a Recreate rollout scales every old replica down at once", func(w *epWorld) {
			w.put(1000, rbDeployment(4, true))
			w.put(1000, rbRS("old", 4, 4, 4))
			w.put(2000, rbRS("old", 0, 4, 4))
		}, ""},
		{"a create no controller manager sent is not judged", func(w *epWorld) {
			w.put(1000, rbDeployment(4, false))
			w.put(1000, rbRS("old", 4, 4, 4))
			w.put(2000, rbRS("new", 4, 0, 4))
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &epWorld{}
			tc.build(w)
			res := feed(NewRolloutBounds(), w.end()...)
			require.Equal(t, "rollout-bounds", res.Name)
			if tc.fail == "" {
				require.True(t, res.OK, res.String())
				return
			}
			require.False(t, res.OK)
			require.Equal(t, tc.fail, res.Offenses[0].What)
		})
	}
}
