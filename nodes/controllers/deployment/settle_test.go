package deployment

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// resourceVersions returns the stored Deployment's and ReplicaSets'
// resourceVersions, by name.
func (e *env) resourceVersions(name string) map[string]string {
	out := map[string]string{name: e.deployment(name).ResourceVersion}
	for n, rs := range e.replicaSets() {
		out["rs/"+n] = rs.ResourceVersion
	}
	return out
}

// TestSettledDeploymentWritesNothing: once a rollout is complete, the
// controller writes neither the Deployment nor its ReplicaSets (the real
// controller only writes what changed: an up-to-date ReplicaSet is not
// updated in getNewReplicaSet, an unchanged status is not written in
// syncRolloutStatus) and does not requeue it (requeueStuckDeployment
// returns -1 for a complete rollout), here with a Deployment annotation
// its ReplicaSet copies and a second revision (an old ReplicaSet at 0).
func TestSettledDeploymentWritesNothing(t *testing.T) {
	e := newEnv(t, 12)
	d := newDeployment("web", 3, "web:1")
	d.Annotations = map[string]string{"team": "a"}
	e.create(d)
	e.rollOut("web", "web:1")
	e.setImage("web", "web:2")
	e.rollOut("web", "web:2")
	e.Run(5 * time.Second)
	require.Equal(t, "a", e.rsOfImage("web:2").Annotations["team"])

	// Count the controller's queue activity from here on.
	kcm, syncs := e.Host("kcm").ID(), 0
	e.W.Trace().Subscribe(func(ev *sim.Event) {
		if ev.Kind == sim.KindTimer && ev.Host == kcm && strings.HasPrefix(ev.Name, "workqueue-") {
			syncs++
		}
	})
	before := e.resourceVersions("web")
	e.Run(60 * time.Second)
	require.Equal(t, before, e.resourceVersions("web"))
	require.Zero(t, syncs, "a complete Deployment is not requeued (requeueStuckDeployment: -1)")
	c := getCondition(&e.deployment("web").Status, model.DeploymentProgressing)
	require.Equal(t, ReasonNewReplicaSetAvailable, c.Reason)
}

// TestRecreateRollbackWaitsForOldPods follows the real oldPodsRunning
// (kubernetes/kubernetes pkg/controller/deployment/recreate.go): rolling a
// Recreate Deployment back to a ReplicaSet that still exists (at 0), every
// non-terminal pod of the other ReplicaSets counts, so the existing one is
// not scaled up while a pod of the one being replaced is left.
func TestRecreateRollbackWaitsForOldPods(t *testing.T) {
	e := newEnv(t, 13)
	d := newDeployment("web", 2, "web:1")
	d.Spec.Strategy.Type = model.RecreateDeploymentStrategyType
	e.create(d)
	e.rollOut("web", "web:1")
	e.setImage("web", "web:2")
	e.rollOut("web", "web:2")

	v2 := e.rsOfImage("web:2")
	pod := &model.Pod{}
	pod.Name, pod.Namespace = "web-straggler", ns
	pod.Labels = v2.Spec.Template.Labels
	pod.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(v2, model.KindReplicaSet)}
	pod.Spec = v2.Spec.Template.Spec
	_, err := e.Create(pod)
	require.NoError(t, err)

	e.setImage("web", "web:1")
	e.Run(20 * time.Second)
	require.Equal(t, int32(0), replicasOf(e.rsOfImage("web:2")), "the replaced ReplicaSet scaled to 0")
	require.Equal(t, int32(0), replicasOf(e.rsOfImage("web:1")), "not scaled up while an old pod is left")

	_, err = e.do(func(cl *client.Client, done client.ObjectCallback) {
		cl.Pods(ns).Delete(pod.Name, client.DeleteOptions{}, done)
	})
	require.NoError(t, err)
	e.rollOut("web", "web:1")
	require.Equal(t, int32(2), replicasOf(e.rsOfImage("web:1")))
	require.Equal(t, "3", e.rsOfImage("web:1").Annotations[RevisionAnnotation])
}

// TestHashCollisionBumpsCollisionCount follows the real getNewReplicaSet
// (kubernetes/kubernetes pkg/controller/deployment/sync.go): when the name
// of the new ReplicaSet is taken by a ReplicaSet the Deployment does not
// own, status.collisionCount goes from 0 to 1 and the ReplicaSet is made
// under the hash that count gives.
func TestHashCollisionBumpsCollisionCount(t *testing.T) {
	e := newEnv(t, 14)
	d := newDeployment("web", 2, "web:1")
	d.Spec.Paused = true
	e.create(d)
	e.Run(5 * time.Second)
	stored := e.deployment("web")

	squatter := &model.ReplicaSet{}
	squatter.Name, squatter.Namespace = "web-"+ComputeHash(&stored.Spec.Template, nil), ns
	squatter.Spec.Replicas = model.Ptr(int32(0))
	squatter.Spec.Selector = &model.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
	squatter.Spec.Template.Labels = map[string]string{"app": "other"}
	squatter.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "other:1"}}
	_, err := e.Create(squatter)
	require.NoError(t, err)

	e.modify("web", func(d *model.Deployment) { d.Spec.Paused = false })
	e.rollOut("web", "web:1")
	got := e.deployment("web")
	require.NotNil(t, got.Status.CollisionCount)
	require.Equal(t, int32(1), *got.Status.CollisionCount)
	rs := e.rsOfImage("web:1")
	require.Equal(t, "web-"+ComputeHash(&got.Spec.Template, model.Ptr(int32(1))), rs.Name)
	require.True(t, model.IsControlledBy(rs, got))
}

// TestMinReadySecondsFollowsDeployment follows the real getNewReplicaSet:
// a change of the Deployment's minReadySeconds alone (not part of the pod
// template, so no new revision) is written to its new ReplicaSet.
func TestMinReadySecondsFollowsDeployment(t *testing.T) {
	e := newEnv(t, 15)
	e.create(newDeployment("web", 2, "web:1"))
	e.rollOut("web", "web:1")
	e.modify("web", func(d *model.Deployment) { d.Spec.MinReadySeconds = 7 })
	e.Run(10 * time.Second)
	require.Len(t, e.replicaSets(), 1)
	rs := e.rsOfImage("web:1")
	require.Equal(t, int32(7), rs.Spec.MinReadySeconds)
	require.Equal(t, "1", rs.Annotations[RevisionAnnotation])
}
