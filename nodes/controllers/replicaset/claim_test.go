package replicaset

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// orphanPod is a pod without owner references labelled app=app.
func orphanPod(name, app string) *model.Pod {
	return &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}
}

// A failed adoption is an error of the claim, so the sync fails and is
// retried before it manages replicas: ClaimPods returns the errors of
// ClaimObject (kubernetes/kubernetes pkg/controller/controller_ref_manager.go,
// func ClaimPods, utilerrors.NewAggregate(errlist)), and syncReplicaSet
// returns it (pkg/controller/replicaset/replica_set.go, func syncReplicaSet).
// Here canAdopt's quorum read finds a ReplicaSet of another UID under the
// name ("original ReplicaSet is gone"), as after a delete and recreate.
func TestClaimReportsFailedAdoption(t *testing.T) {
	e := newEnv(t, 11, envOpts{})
	e.mustCreate(newRS("ghost", 0, 0)) // selects app=ghost: none of the pods below
	for _, name := range []string{"stray-1", "stray-2"} {
		e.mustCreate(orphanPod(name, "stray"))
	}
	e.Run(2 * time.Second)
	stale := e.rs("ghost").DeepCopy()
	stale.UID = "the-deleted-incarnation"
	sel, err := (&model.LabelSelector{MatchLabels: map[string]string{"app": "stray"}}).AsSelector()
	require.NoError(t, err)
	pods := e.pods("stray")
	require.Len(t, pods, 2)

	finished := false
	var claimed []*model.Pod
	var claimErr error
	e.ctl.claimPods(stale, sel, pods, func(c []*model.Pod, err error) { finished, claimed, claimErr = true, c, err })
	for i := 0; i < 50 && !finished; i++ {
		e.Run(100 * time.Millisecond)
	}
	require.True(t, finished)
	require.ErrorContains(t, claimErr, "is gone", "the failed adoption is the claim's error")
	require.Empty(t, claimed)
	for _, p := range e.pods("stray") {
		require.Nil(t, model.GetControllerOf(p), "%s stays an orphan", p.Name)
	}
}

// An orphan created after its ReplicaSet wakes the ReplicaSets whose
// selector matches it (addPod: getPodReplicaSets, then enqueueRS), which
// adopt it and, with one pod too many, delete one
// (kubernetes/kubernetes pkg/controller/replicaset/replica_set.go, func addPod).
func TestOrphanCreatedLaterIsAdopted(t *testing.T) {
	e := newEnv(t, 12, envOpts{})
	rs := e.mustCreate(newRS("web", 2, 0)).(*model.ReplicaSet)
	e.Run(3 * time.Second)
	require.Len(t, e.pods("web"), 2)
	e.mustCreate(orphanPod("stray", "web"))
	e.Run(3 * time.Second)
	left := active(e.pods("web"))
	require.Len(t, left, 2, "adopted, then one too many deleted")
	for _, p := range left {
		require.True(t, model.IsControlledBy(p, rs), "%s is the ReplicaSet's", p.Name)
	}
}

// A user who takes a pod away from its ReplicaSet (controllerRef removed,
// labels changed) wakes the old controller, which replaces it: updatePod
// syncs the old controller when the ControllerRef changed
// (kubernetes/kubernetes pkg/controller/replicaset/replica_set.go, func
// updatePod). The new labels match no ReplicaSet, so nothing else wakes it.
func TestPodTakenAwayIsReplaced(t *testing.T) {
	e := newEnv(t, 13, envOpts{})
	rs := e.mustCreate(newRS("web", 3, 0)).(*model.ReplicaSet)
	e.Run(3 * time.Second)
	pods := e.pods("web")
	require.Len(t, pods, 3)
	p := pods[0]
	p.OwnerReferences = nil
	p.Labels = map[string]string{"app": "debug"}
	_, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).Update(p, done) })
	require.NoError(t, err)
	e.Run(3 * time.Second)
	left := active(e.pods("web"))
	require.Len(t, left, 3, "replaced")
	for _, q := range left {
		require.True(t, model.IsControlledBy(q, rs))
		require.NotEqual(t, p.Name, q.Name)
	}
	taken := e.pods("debug")
	require.Len(t, taken, 1)
	require.Nil(t, model.GetControllerOf(taken[0]), "left alone")
}

// sameRef is updatePod's controllerRefChanged test negated:
// !reflect.DeepEqual(curControllerRef, oldControllerRef)
// (kubernetes/kubernetes pkg/controller/replicaset/replica_set.go, func
// updatePod). Every field of the reference counts.
func TestSameRefIsDeepEqual(t *testing.T) {
	base := model.OwnerReference{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "web", UID: "u1",
		Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true)}
	with := func(f func(r *model.OwnerReference)) *model.OwnerReference {
		r := base
		f(&r)
		return &r
	}
	same := func(*model.OwnerReference) {}
	cases := []struct {
		name string
		a, b *model.OwnerReference
	}{
		{"both nil", nil, nil},
		{"adopted: old nil", &base, nil},
		{"released: new nil", nil, &base},
		{"equal", with(same), with(same)},
		{"another UID", with(same), with(func(r *model.OwnerReference) { r.UID = "u2" })},
		{"another kind", with(same), with(func(r *model.OwnerReference) { r.Kind = model.KindDeployment })},
		{"another name", with(same), with(func(r *model.OwnerReference) { r.Name = "db" })},
		{"another API version", with(same), with(func(r *model.OwnerReference) { r.APIVersion = "extensions/v1beta1" })},
		{"controller unset", with(same), with(func(r *model.OwnerReference) { r.Controller = nil })},
		{"blockOwnerDeletion false", with(same), with(func(r *model.OwnerReference) { r.BlockOwnerDeletion = model.Ptr(false) })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := reflect.DeepEqual(tc.a, tc.b)
			require.Equal(t, want, sameRef(tc.a, tc.b))
			require.Equal(t, want, sameRef(tc.b, tc.a))
		})
	}
}
