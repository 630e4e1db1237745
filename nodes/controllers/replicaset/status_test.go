package replicaset

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// A ReplicaSet whose pods are all ready but not yet available syncs again
// after minReadySeconds, with no pod event to wake it: syncReplicaSet's
// "last line of defense" AddAfter (kubernetes/kubernetes
// pkg/controller/replicaset/replica_set.go, func syncReplicaSet). Here the
// pods turn ready under minReadySeconds 0, then minReadySeconds is raised:
// no pod changes, yet they count as available once ready for that long.
func TestRaisedMinReadySecondsResyncs(t *testing.T) {
	e := newEnv(t, 15, envOpts{})
	e.mustCreate(newRS("web", 2, 0))
	e.Run(3 * time.Second)
	for _, p := range e.pods("web") {
		e.markReady(p)
	}
	e.Run(time.Second)
	require.Equal(t, int32(2), e.rs("web").Status.AvailableReplicas, "minReadySeconds 0: available once ready")

	rs := e.rs("web")
	rs.Spec.MinReadySeconds = 20
	_, err := e.call(func(done client.ObjectCallback) { e.Admin().ReplicaSets(ns).Update(rs, done) })
	require.NoError(t, err)
	e.Run(2 * time.Second)
	st := e.rs("web").Status
	require.Equal(t, int32(2), st.ReadyReplicas)
	require.Zero(t, st.AvailableReplicas, "ready for less than 20 s")
	e.Run(20 * time.Second)
	require.Equal(t, int32(2), e.rs("web").Status.AvailableReplicas, "resynced after minReadySeconds")
}

// calculateStatus sets the ReplicaFailure condition when manageReplicas
// failed and there is none yet (reason FailedCreate with too few pods,
// FailedDelete with too many, none otherwise; the error as message), keeps
// an existing one as it is, and removes it after a sync without error,
// leaving other conditions alone (kubernetes/kubernetes
// pkg/controller/replicaset/replica_set_utils.go, func calculateStatus,
// and RemoveCondition).
func TestCalculateStatusReplicaFailure(t *testing.T) {
	const now, earlier = model.Time(100 * time.Second), model.Time(10 * time.Second)
	errManage := errors.New("pods is forbidden")
	failure := func(reason, msg string, at model.Time) model.ReplicaSetCondition {
		return model.ReplicaSetCondition{Type: model.ReplicaSetReplicaFailure, Status: model.ConditionTrue,
			LastTransitionTime: at, Reason: reason, Message: msg}
	}
	other := model.ReplicaSetCondition{Type: "Other", Status: model.ConditionTrue, Reason: "Else"}
	cases := []struct {
		name      string
		pods      int
		manageErr error
		before    []model.ReplicaSetCondition
		want      []model.ReplicaSetCondition
	}{
		{"no error, no condition", 2, nil, nil, nil},
		{"too few pods: FailedCreate", 1, errManage, nil, []model.ReplicaSetCondition{failure("FailedCreate", errManage.Error(), now)}},
		{"too many pods: FailedDelete", 3, errManage, nil, []model.ReplicaSetCondition{failure("FailedDelete", errManage.Error(), now)}},
		{"as many pods: no reason", 2, errManage, nil, []model.ReplicaSetCondition{failure("", errManage.Error(), now)}},
		{"failing again: the condition is kept as it was", 1, errManage,
			[]model.ReplicaSetCondition{failure("FailedDelete", "older", earlier)}, []model.ReplicaSetCondition{failure("FailedDelete", "older", earlier)}},
		{"a sync without error removes it", 2, nil,
			[]model.ReplicaSetCondition{other, failure("FailedCreate", "older", earlier)}, []model.ReplicaSetCondition{other}},
		{"another condition alone is kept", 2, nil, []model.ReplicaSetCondition{other}, []model.ReplicaSetCondition{other}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRS("web", 2, 0)
			rs.Status.Conditions = tc.before
			var pods []*model.Pod
			for i := 0; i < tc.pods; i++ {
				pods = append(pods, podFromTemplate(rs))
			}
			got := calculateStatus(rs, pods, tc.manageErr, now)
			require.Equal(t, tc.want, got.Conditions)
			require.Equal(t, int32(tc.pods), got.Replicas)
		})
	}
}

// updateStatus writes on the ReplicaSet it was given and, after a failed
// write, once more on a fresh quorum read; a second failure is the sync's
// error (kubernetes/kubernetes pkg/controller/replicaset/replica_set_utils.go,
// func updateReplicaSetStatus, statusUpdateRetries = 1). A stale
// resourceVersion fails once (a conflict); a controller not allowed to
// write status (the scheduler's identity, which may read it) fails every
// time.
func TestStatusUpdateRetriesOnceOnAFreshRead(t *testing.T) {
	cases := []struct {
		name      string
		user      string
		forbidden bool
	}{
		{"stale: the retry succeeds", user, false},
		{"forbidden: one retry, then the error", "system:kube-scheduler", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 17, envOpts{user: tc.user})
			e.mustCreate(newRS("web", 0, 0))
			e.Run(2 * time.Second)
			// The status the controller computes, so that its own syncs
			// write nothing (and fail nowhere) from here on.
			cur := e.rs("web")
			cur.Status = model.ReplicaSetStatus{ObservedGeneration: cur.Generation}
			_, err := e.call(func(done client.ObjectCallback) { e.Admin().ReplicaSets(ns).UpdateStatus(cur, done) })
			require.NoError(t, err)
			e.Run(2 * time.Second)
			stale := e.rs("web")
			touched := stale.DeepCopy()
			touched.Annotations = map[string]string{"touched": "yes"}
			_, err = e.call(func(done client.ObjectCallback) { e.Admin().ReplicaSets(ns).Update(touched, done) })
			require.NoError(t, err)
			e.Run(2 * time.Second)

			from := len(e.calls)
			want := stale.Status
			want.Replicas = 7
			finished := false
			var updated *model.ReplicaSet
			var got error
			var calls []timedCall
			e.ctl.updateStatus(stale, want, func(rs *model.ReplicaSet, err error) {
				finished, updated, got = true, rs, err
				calls = append(calls, e.calls[from:]...)
			})
			e.Run(5 * time.Second)
			require.True(t, finished)
			// The calls of updateStatus come first; the controller's own
			// sync may follow as soon as its informer sees the write (it
			// puts back the status it computes), racing the write's reply.
			var verbs []string
			for _, c := range calls {
				if c.Resource == model.ResourceReplicaSetsName {
					verbs = append(verbs, c.Verb)
				}
			}
			require.GreaterOrEqual(t, len(verbs), 3)
			require.Equal(t, []string{"update-status", "get", "update-status"}, verbs[:3], "one write, one read, one more write")
			if len(verbs) > 3 {
				require.Len(t, verbs, 4, "at most one more write, the controller's own sync")
			}
			if tc.forbidden {
				require.True(t, client.IsForbidden(got), "%v", got)
				return
			}
			require.NoError(t, got)
			require.Equal(t, int32(7), updated.Status.Replicas)
			require.Equal(t, "yes", updated.Annotations["touched"], "written on the fresh read")
		})
	}
}
