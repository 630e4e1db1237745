package deployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// TestRecreateScalesDownWaitsForPodsThenScalesUp: the old ReplicaSet goes
// to 0 first; the new one is not created while a pod of the old one is
// left; once it is deleted, the new ReplicaSet comes at full size.
func TestRecreateScalesDownWaitsForPodsThenScalesUp(t *testing.T) {
	e := newEnv(t, 5)
	d := newDeployment("web", 3, "web:1")
	d.Spec.Strategy.Type = model.RecreateDeploymentStrategyType
	e.create(d)
	e.rollOut("web", "web:1")

	// A pod of the old ReplicaSet that outlives its scale-down (a slow
	// terminating pod, which the stand-in does not model).
	old := e.rsOfImage("web:1")
	pod := &model.Pod{}
	pod.Name, pod.Namespace = "web-straggler", ns
	pod.Labels = old.Spec.Template.Labels
	pod.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(old, model.KindReplicaSet)}
	pod.Spec = old.Spec.Template.Spec
	_, err := e.Create(pod)
	require.NoError(t, err)

	s := e.standIn()
	s.track = true
	e.setImage("web", "web:2")
	e.Run(20 * time.Second)
	require.Equal(t, int32(0), replicasOf(e.rsOfImage("web:1")), "old ReplicaSet scaled to 0")
	require.Nil(t, e.rsOfImage("web:2"), "no new ReplicaSet while an old pod is left")

	_, err = e.do(func(cl *client.Client, done client.ObjectCallback) {
		cl.Pods(ns).Delete(pod.Name, client.DeleteOptions{}, done)
	})
	require.NoError(t, err)
	e.Run(5 * time.Second)
	cur := e.rsOfImage("web:2")
	require.NotNil(t, cur, "new ReplicaSet once the old pods are gone")
	require.Equal(t, int32(3), replicasOf(cur), "created at full size")
	e.rollOut("web", "web:2")
	require.False(t, s.overlap, "new pods never ran beside old ones")
	require.Equal(t, "2", e.rsOfImage("web:2").Annotations[RevisionAnnotation])
}
