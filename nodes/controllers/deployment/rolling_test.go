package deployment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestRollingUpdateRespectsSurgeAndUnavailable rolls a template change out
// one ready pod at a time and checks, over every ReplicaSet state the
// stand-in saw, that the total never exceeded replicas+maxSurge and the
// available pods never fell below replicas-maxUnavailable, and that both
// bounds were used to the full.
func TestRollingUpdateRespectsSurgeAndUnavailable(t *testing.T) {
	pct, num := model.FromString, model.FromInt
	cases := []struct {
		name                       string
		replicas                   int32
		surge, unavailable         model.IntOrString
		wantSurge, wantUnavailable int32
	}{
		{"default 25%/25% of 10", 10, pct("25%"), pct("25%"), 3, 2},
		{"25% of 3: surge rounds up, unavailable down", 3, pct("25%"), pct("25%"), 1, 0},
		{"surge 0, unavailable 1", 4, num(0), num(1), 0, 1},
		{"surge 2, unavailable 0", 4, num(2), num(0), 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 1)
			d := newDeployment("web", tc.replicas, "web:1")
			d.Spec.Strategy.RollingUpdate = &model.RollingUpdateDeployment{MaxSurge: &tc.surge, MaxUnavailable: &tc.unavailable}
			e.create(d)
			e.rollOut("web", "web:1")

			s := e.standIn()
			s.track = true
			e.setImage("web", "web:2")
			e.rollOut("web", "web:2")

			require.Equal(t, tc.replicas+tc.wantSurge, s.maxTotal, "most pods at once")
			require.Equal(t, tc.replicas-tc.wantUnavailable, s.minAvailable, "fewest available pods")
			old, cur := e.rsOfImage("web:1"), e.rsOfImage("web:2")
			require.Equal(t, int32(0), replicasOf(old))
			require.Equal(t, tc.replicas, replicasOf(cur))
			got := e.deployment("web")
			require.True(t, IsComplete(got))
			require.Equal(t, tc.replicas, got.Status.AvailableReplicas)
			require.Equal(t, int32(0), got.Status.UnavailableReplicas)
			require.Equal(t, ReasonNewReplicaSetAvailable, getCondition(&got.Status, model.DeploymentProgressing).Reason)
			require.Equal(t, model.ConditionTrue, getCondition(&got.Status, model.DeploymentAvailable).Status)
		})
	}
}

// TestNewReplicaSetShape checks the new ReplicaSet's name, hash label,
// owner and annotations.
func TestNewReplicaSetShape(t *testing.T) {
	e := newEnv(t, 2)
	e.create(newDeployment("web", 2, "web:1"))
	e.rollOut("web", "web:1")
	d := e.deployment("web")
	rs := e.rsOfImage("web:1")
	hash := ComputeHash(&d.Spec.Template, nil)
	require.Equal(t, "web-"+hash, rs.Name)
	require.Equal(t, hash, rs.Spec.Template.Labels[DefaultDeploymentUniqueLabelKey])
	require.Equal(t, hash, rs.Spec.Selector.MatchLabels[DefaultDeploymentUniqueLabelKey])
	require.Equal(t, "web", rs.Spec.Selector.MatchLabels["app"])
	require.True(t, model.IsControlledBy(rs, d))
	require.Equal(t, map[string]string{RevisionAnnotation: "1", DesiredReplicasAnnotation: "2", MaxReplicasAnnotation: "3"}, rs.Annotations)
	require.Equal(t, d.Generation, d.Status.ObservedGeneration)
}

// TestRevisionAnnotations rolls v1, v2, then v1 again: the old ReplicaSet
// becomes the newest with the next revision and keeps its former one in
// the revision history.
func TestRevisionAnnotations(t *testing.T) {
	e := newEnv(t, 3)
	e.create(newDeployment("web", 2, "web:1"))
	e.rollOut("web", "web:1")
	e.setImage("web", "web:2")
	e.rollOut("web", "web:2")
	require.Equal(t, "1", e.rsOfImage("web:1").Annotations[RevisionAnnotation])
	require.Equal(t, "2", e.rsOfImage("web:2").Annotations[RevisionAnnotation])

	e.setImage("web", "web:1")
	e.rollOut("web", "web:1")
	v1 := e.rsOfImage("web:1")
	require.Equal(t, "3", v1.Annotations[RevisionAnnotation])
	require.Equal(t, "1", v1.Annotations[RevisionHistoryAnnotation])
	require.Equal(t, int32(2), replicasOf(v1))
	require.Equal(t, int32(0), replicasOf(e.rsOfImage("web:2")))
	require.Len(t, e.replicaSets(), 2, "rolling back reuses the old ReplicaSet")
}

// TestOldRevisionsCleanedUp keeps revisionHistoryLimit old ReplicaSets.
func TestOldRevisionsCleanedUp(t *testing.T) {
	e := newEnv(t, 4)
	d := newDeployment("web", 2, "web:1")
	d.Spec.RevisionHistoryLimit = model.Ptr(int32(1))
	e.create(d)
	e.rollOut("web", "web:1")
	e.setImage("web", "web:2")
	e.rollOut("web", "web:2")
	e.setImage("web", "web:3")
	e.rollOut("web", "web:3")
	e.Run(5e9)
	require.Nil(t, e.rsOfImage("web:1"), "the oldest revision is deleted")
	require.NotNil(t, e.rsOfImage("web:2"), "one old revision is kept")
	require.NotNil(t, e.rsOfImage("web:3"))
}
