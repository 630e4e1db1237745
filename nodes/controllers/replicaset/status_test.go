package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
