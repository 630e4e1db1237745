package deployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestScalingChangesOnlyReplicas scales a complete Deployment: its one
// ReplicaSet takes the new size, with no new revision.
func TestScalingChangesOnlyReplicas(t *testing.T) {
	e := newEnv(t, 6)
	e.create(newDeployment("web", 4, "web:1"))
	e.rollOut("web", "web:1")
	e.modify("web", func(d *model.Deployment) { d.Spec.Replicas = model.Ptr(int32(6)) })
	e.rollOut("web", "web:1")
	require.Len(t, e.replicaSets(), 1)
	rs := e.rsOfImage("web:1")
	require.Equal(t, int32(6), replicasOf(rs))
	require.Equal(t, "6", rs.Annotations[DesiredReplicasAnnotation])
	require.Equal(t, "8", rs.Annotations[MaxReplicasAnnotation])
	require.Equal(t, "1", rs.Annotations[RevisionAnnotation])
}

// TestPausedDeploymentIsNotRolled: a template change while paused makes no
// new ReplicaSet; resuming rolls it out.
func TestPausedDeploymentIsNotRolled(t *testing.T) {
	e := newEnv(t, 7)
	e.create(newDeployment("web", 2, "web:1"))
	e.rollOut("web", "web:1")
	e.modify("web", func(d *model.Deployment) {
		d.Spec.Paused = true
		d.Spec.Template.Spec.Containers[0].Image = "web:2"
	})
	e.Run(20 * time.Second)
	require.Nil(t, e.rsOfImage("web:2"))
	c := getCondition(&e.deployment("web").Status, model.DeploymentProgressing)
	require.Equal(t, model.ConditionUnknown, c.Status)
	require.Equal(t, ReasonDeploymentPaused, c.Reason)

	e.modify("web", func(d *model.Deployment) { d.Spec.Paused = false })
	e.rollOut("web", "web:2")
	require.Equal(t, int32(0), replicasOf(e.rsOfImage("web:1")))
}

// TestProgressDeadlineExceeded: new pods that never become ready make
// Progressing False once progressDeadlineSeconds pass without progress,
// and not before.
func TestProgressDeadlineExceeded(t *testing.T) {
	e := newEnv(t, 8)
	d := newDeployment("web", 2, "web:1")
	d.Spec.ProgressDeadlineSeconds = model.Ptr(int32(30))
	e.create(d)
	e.rollOut("web", "web:1")
	e.setImage("web", "web:2")
	e.Run(10 * time.Second)
	last := getCondition(&e.deployment("web").Status, model.DeploymentProgressing)
	require.Equal(t, model.ConditionTrue, last.Status)
	require.NotEqual(t, ReasonNewReplicaSetAvailable, last.Reason)

	e.Run(time.Duration(last.LastUpdateTime.Add(30*time.Second)) - time.Duration(e.W.Now()))
	require.Equal(t, model.ConditionTrue, getCondition(&e.deployment("web").Status, model.DeploymentProgressing).Status,
		"not timed out at the deadline itself")
	e.Run(3 * time.Second)
	got := e.deployment("web")
	c := getCondition(&got.Status, model.DeploymentProgressing)
	require.Equal(t, model.ConditionFalse, c.Status)
	require.Equal(t, ReasonProgressDeadlineExceeded, c.Reason)
	require.Equal(t, model.ConditionTrue, getCondition(&got.Status, model.DeploymentAvailable).Status, "old pods still serve")
}
