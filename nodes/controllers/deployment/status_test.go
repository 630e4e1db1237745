package deployment

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestDeploymentCompleteAndProgressing follows deploymentutil's
// DeploymentComplete and DeploymentProgressing (kubernetes/kubernetes
// pkg/controller/deployment/util/deployment_util.go): complete is every
// replica updated, no other pod left, every replica available, at the
// current generation or later; progressing is more updated, ready or
// available pods than the stored status, or fewer old ones.
func TestDeploymentCompleteAndProgressing(t *testing.T) {
	d := newDeployment("web", 3, "web:2")
	d.Generation = 2
	full := model.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3}
	for _, tc := range []struct {
		name string
		edit func(st *model.DeploymentStatus)
		want bool
	}{
		{"every replica updated and available", func(*model.DeploymentStatus) {}, true},
		{"observed a newer generation", func(st *model.DeploymentStatus) { st.ObservedGeneration = 3 }, true},
		{"an old pod left", func(st *model.DeploymentStatus) { st.Replicas = 4 }, false},
		{"one not updated", func(st *model.DeploymentStatus) { st.UpdatedReplicas = 2 }, false},
		{"one not available", func(st *model.DeploymentStatus) { st.AvailableReplicas = 2 }, false},
		{"an older generation", func(st *model.DeploymentStatus) { st.ObservedGeneration = 1 }, false},
	} {
		st := full
		tc.edit(&st)
		require.Equal(t, tc.want, deploymentComplete(d, &st), tc.name)
	}

	// Stored: 5 pods, 2 of them updated (3 old), 3 ready, 3 available.
	d.Status = model.DeploymentStatus{Replicas: 5, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 3}
	for _, tc := range []struct {
		name string
		edit func(st *model.DeploymentStatus)
		want bool
	}{
		{"nothing changed", func(*model.DeploymentStatus) {}, false},
		{"one more updated, as many old", func(st *model.DeploymentStatus) { st.UpdatedReplicas, st.Replicas = 3, 6 }, true},
		{"one old pod fewer", func(st *model.DeploymentStatus) { st.Replicas = 4 }, true},
		{"one old pod more", func(st *model.DeploymentStatus) { st.Replicas = 6 }, false},
		{"one more ready", func(st *model.DeploymentStatus) { st.ReadyReplicas = 4 }, true},
		{"one more available", func(st *model.DeploymentStatus) { st.AvailableReplicas = 4 }, true},
		{"fewer ready and available", func(st *model.DeploymentStatus) { st.ReadyReplicas, st.AvailableReplicas = 2, 2 }, false},
	} {
		st := d.Status
		tc.edit(&st)
		require.Equal(t, tc.want, deploymentProgressing(d, &st), tc.name)
	}
}

// TestProgressDeadlineChecks follows DeploymentTimedOut and the real
// requeueStuckDeployment (kubernetes/kubernetes
// pkg/controller/deployment/progress.go): with a 30 s deadline and the
// Progressing condition last updated at t0, a rollout times out strictly
// after t0+30s; a stuck one is requeued after the time left plus a second,
// or at once (rate-limited, 0) with less than a second left; never (-1)
// without a deadline or condition, once complete, or once timed out.
func TestProgressDeadlineChecks(t *testing.T) {
	t0 := model.Time(100 * time.Second)
	at := func(d time.Duration) model.Time { return t0.Add(d) }
	withCond := func(reason string) *model.Deployment {
		d := newDeployment("web", 3, "web:2")
		d.Spec.ProgressDeadlineSeconds = model.Ptr(int32(30))
		if reason != "" {
			d.Status.Conditions = []model.DeploymentCondition{newCondition(model.DeploymentProgressing, model.ConditionTrue, reason, "", t0)}
		}
		return d
	}
	updated := ReasonReplicaSetUpdated

	timedOut := []struct {
		name string
		d    *model.Deployment
		now  model.Time
		want bool
	}{
		{"no condition", withCond(""), at(time.Hour), false},
		{"complete", withCond(ReasonNewReplicaSetAvailable), at(time.Hour), false},
		{"already timed out", withCond(ReasonProgressDeadlineExceeded), at(0), true},
		{"before the deadline", withCond(updated), at(29 * time.Second), false},
		{"at the deadline", withCond(updated), at(30 * time.Second), false},
		{"after the deadline", withCond(updated), at(31 * time.Second), true},
	}
	for _, tc := range timedOut {
		require.Equal(t, tc.want, deploymentTimedOut(tc.d, &tc.d.Status, tc.now), tc.name)
	}

	noDeadline := withCond(updated)
	noDeadline.Spec.ProgressDeadlineSeconds = nil
	complete := model.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3}
	requeue := []struct {
		name string
		d    *model.Deployment
		st   model.DeploymentStatus
		now  model.Time
		want time.Duration
	}{
		{"no deadline", noDeadline, model.DeploymentStatus{}, at(0), -1},
		{"no condition", withCond(""), model.DeploymentStatus{}, at(0), -1},
		{"complete", withCond(updated), complete, at(0), -1},
		{"already timed out", withCond(ReasonProgressDeadlineExceeded), model.DeploymentStatus{}, at(0), -1},
		{"20 s left", withCond(updated), model.DeploymentStatus{}, at(10 * time.Second), 21 * time.Second},
		{"exactly 1 s left", withCond(updated), model.DeploymentStatus{}, at(29 * time.Second), 2 * time.Second},
		{"half a second left", withCond(updated), model.DeploymentStatus{}, at(29*time.Second + 500*time.Millisecond), 0},
		{"past the deadline", withCond(updated), model.DeploymentStatus{}, at(40 * time.Second), 0},
	}
	for _, tc := range requeue {
		require.Equal(t, tc.want, stuckRequeue(tc.d, &tc.st, tc.now), tc.name)
	}
}

// TestCalculateStatusCounts follows the real calculateStatus (kubernetes/
// kubernetes pkg/controller/deployment/sync.go): pods, ready and available
// summed over the ReplicaSets' status, updated from the new one's,
// unavailable = the ReplicaSets' spec total - available (never below 0),
// and Available True from replicas - maxUnavailable available pods on.
func TestCalculateStatusCounts(t *testing.T) {
	d := rolling(10, model.FromInt(3), model.FromInt(2)) // minAvailable 8
	d.Generation = 4
	for _, tc := range []struct {
		name               string
		oldAvail, newAvail int32
		wantUnavailable    int32
		wantAvailable      model.ConditionStatus
		wantReason         string
	}{
		{"8 available: minimum met", 5, 3, 5, model.ConditionTrue, ReasonMinimumReplicasAvailable},
		{"7 available: below the minimum", 4, 3, 6, model.ConditionFalse, ReasonMinimumReplicasUnavailable},
		{"stale status above the specs: none unavailable", 9, 6, 0, model.ConditionTrue, ReasonMinimumReplicasAvailable},
	} {
		old, cur := rsAt("old", 1, 9, tc.oldAvail, 0), rsAt("new", 2, 4, tc.newAvail, 0)
		old.Status.Replicas, cur.Status.Replicas = 10, 3
		old.Status.ReadyReplicas, cur.Status.ReadyReplicas = tc.oldAvail+1, tc.newAvail
		st := calculateStatus([]*model.ReplicaSet{old, cur}, cur, d, 7)
		require.Equal(t, int64(4), st.ObservedGeneration, tc.name)
		require.Equal(t, int32(13), st.Replicas, tc.name)
		require.Equal(t, int32(3), st.UpdatedReplicas, tc.name)
		require.Equal(t, tc.oldAvail+1+tc.newAvail, st.ReadyReplicas, tc.name)
		require.Equal(t, tc.oldAvail+tc.newAvail, st.AvailableReplicas, tc.name)
		require.Equal(t, tc.wantUnavailable, st.UnavailableReplicas, tc.name)
		c := getCondition(&st, model.DeploymentAvailable)
		require.Equal(t, tc.wantAvailable, c.Status, tc.name)
		require.Equal(t, tc.wantReason, c.Reason, tc.name)
	}
}

// TestReplicaSetOrders follows controller.ReplicaSetsByCreationTimestamp
// (oldest first, ties by name) and deploymentutil.ReplicaSetsByRevision
// (lowest revision first; equal or malformed revisions by creation), which
// decide which old ReplicaSet shrinks first and which revision the cleanup
// deletes first. Names are chosen against both orders.
func TestReplicaSetOrders(t *testing.T) {
	names := func(rss []*model.ReplicaSet) []string {
		var out []string
		for _, rs := range rss {
			out = append(out, rs.Name)
		}
		return out
	}
	withRev := func(rs *model.ReplicaSet, rev string) *model.ReplicaSet {
		rs.Annotations = map[string]string{RevisionAnnotation: rev}
		return rs
	}
	byCreation := []*model.ReplicaSet{rsAt("a", 3, 1, 1, 0), rsAt("z", 1, 1, 1, 0), rsAt("c", 2, 1, 1, 0), rsAt("b", 2, 1, 1, 0)}
	require.Equal(t, []string{"z", "b", "c", "a"}, names(sortedByCreation(byCreation)))

	// A rollback made v1 (created first) revision 4 and v3 revision 3.
	byRevision := []*model.ReplicaSet{withRev(rsAt("v1", 1, 0, 0, 0), "4"), withRev(rsAt("v3", 3, 0, 0, 0), "3"),
		withRev(rsAt("x", 5, 0, 0, 0), "2"), withRev(rsAt("w", 4, 0, 0, 0), "2"), withRev(rsAt("bad", 6, 0, 0, 0), "?")}
	sorted := append([]*model.ReplicaSet{}, byRevision[:4]...)
	slices.SortStableFunc(sorted, lessByRevision)
	require.Equal(t, []string{"w", "x", "v3", "v1"}, names(sorted))
	require.Positive(t, lessByRevision(byRevision[4], byRevision[1]), "a malformed revision sorts by creation")
	require.Negative(t, lessByRevision(byRevision[1], byRevision[4]), "a malformed revision sorts by creation")
}

// TestSetConditionTransitionTime follows SetDeploymentCondition
// (deploymentutil): the same status and reason change nothing; a new
// reason with the same status keeps the last transition time; a new
// status takes the new condition's times.
func TestSetConditionTransitionTime(t *testing.T) {
	st := model.DeploymentStatus{}
	setCondition(&st, newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonNewReplicaSetCreated, "", 10))
	setCondition(&st, newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonNewReplicaSetCreated, "", 20))
	c := getCondition(&st, model.DeploymentProgressing)
	require.Equal(t, model.Time(10), c.LastUpdateTime, "same status and reason: unchanged")

	setCondition(&st, newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonReplicaSetUpdated, "", 30))
	c = getCondition(&st, model.DeploymentProgressing)
	require.Equal(t, ReasonReplicaSetUpdated, c.Reason)
	require.Equal(t, model.Time(30), c.LastUpdateTime)
	require.Equal(t, model.Time(10), c.LastTransitionTime, "same status: the transition time stays")

	setCondition(&st, newCondition(model.DeploymentProgressing, model.ConditionFalse, ReasonProgressDeadlineExceeded, "", 40))
	c = getCondition(&st, model.DeploymentProgressing)
	require.Equal(t, model.Time(40), c.LastTransitionTime, "new status: a transition")
	require.Len(t, st.Conditions, 1)
}

// TestRolloutStatusAfterCompletion follows the real syncRolloutStatus
// (kubernetes/kubernetes pkg/controller/deployment/progress.go): once
// Progressing says NewReplicaSetAvailable and every pod is updated
// (status replicas == updated replicas), progress is not estimated, so a
// scale-up keeps NewReplicaSetAvailable; a rollback to an existing
// ReplicaSet (old pods left) is estimated again and reports
// ReplicaSetUpdated; further progress refreshes the condition's update
// time even with the same reason.
func TestRolloutStatusAfterCompletion(t *testing.T) {
	complete := func(replicas int32) *model.Deployment {
		d := newDeployment("web", replicas, "web:1")
		d.Spec.ProgressDeadlineSeconds = model.Ptr(int32(600))
		d.Status = model.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
			Conditions: []model.DeploymentCondition{newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonNewReplicaSetAvailable, "", 10)}}
		return d
	}
	// Scaled 3 -> 5: the one ReplicaSet has 5 pods, 3 of them available.
	cur := rsAt("web-1", 1, 5, 3, 0)
	cur.Status.ReadyReplicas = 3
	st := rolloutStatus([]*model.ReplicaSet{cur}, cur, complete(5), 50)
	c := getCondition(&st, model.DeploymentProgressing)
	require.Equal(t, ReasonNewReplicaSetAvailable, c.Reason, "a scale-up of a complete rollout")
	require.Equal(t, model.Time(10), c.LastUpdateTime)

	// Rolled back: the existing ReplicaSet has 1 pod, now available, the
	// other still 3.
	back, other := rsAt("web-0", 1, 1, 1, 0), rsAt("web-1", 2, 3, 3, 0)
	back.Status.ReadyReplicas, other.Status.ReadyReplicas = 1, 3
	st = rolloutStatus([]*model.ReplicaSet{other, back}, back, complete(3), 50)
	c = getCondition(&st, model.DeploymentProgressing)
	require.Equal(t, ReasonReplicaSetUpdated, c.Reason, "a rollback is a new rollout")
	require.Equal(t, model.Time(50), c.LastUpdateTime)
	require.Equal(t, model.Time(10), c.LastTransitionTime, "still True: no transition")

	// More progress of the same rollout: the same reason, but the update
	// time moves on, so the deadline counts from the latest progress.
	d := complete(3)
	d.Status.Conditions = []model.DeploymentCondition{newCondition(model.DeploymentProgressing, model.ConditionTrue, ReasonReplicaSetUpdated, "", 10)}
	st = rolloutStatus([]*model.ReplicaSet{other, back}, back, d, 50)
	c = getCondition(&st, model.DeploymentProgressing)
	require.Equal(t, ReasonReplicaSetUpdated, c.Reason)
	require.Equal(t, model.Time(50), c.LastUpdateTime, "progress refreshes lastUpdateTime")
	require.Equal(t, model.Time(10), c.LastTransitionTime)
}
