package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
)

// leaders returns the identities whose last Leading event says leading.
func (tc *testCluster) leaders() []string {
	last := map[string]bool{}
	var order []string
	for _, l := range tc.leading {
		if _, ok := last[l.Identity]; !ok {
			order = append(order, l.Identity)
		}
		last[l.Identity] = l.Leading.Leading
	}
	var out []string
	for _, id := range order {
		if last[id] {
			out = append(out, id)
		}
	}
	return out
}

// twoReplicas builds a cluster with two nodes and schedulers sched-1 and
// sched-2, and runs until one leads.
func twoReplicas(t *testing.T, seed uint64) *testCluster {
	tc := newTestCluster(t, seed, 3, nil)
	tc.createNode(nodeSpec{name: "a", cpu: "8", memory: "16Gi"})
	tc.createNode(nodeSpec{name: "b", cpu: "8", memory: "16Gi"})
	tc.addScheduler("sched-1", nil)
	tc.addScheduler("sched-2", nil)
	tc.Run(10 * time.Second)
	require.Len(t, tc.leaders(), 1)
	return tc
}

func TestOnlyTheLeaderBinds(t *testing.T) {
	tc := twoReplicas(t, 7)
	leader := tc.leaders()[0]
	names := podNames(1, 6)
	for _, n := range names {
		tc.createPod(podSpec{name: n, cpu: "100m"})
	}
	tc.runUntilBound(20*time.Second, names...)
	require.Len(t, tc.bound, 6)
	for _, b := range tc.bound {
		require.Equal(t, leader, b.Scheduler)
	}
	require.Len(t, tc.leading, 1, "one Leading event: the standby never led")
	standby := "sched-1"
	if leader == standby {
		standby = "sched-2"
	}
	require.False(t, tc.scheduler(standby).Leading())
	require.Nil(t, tc.scheduler(standby).Pending(), "the standby runs no informers")
	obj, err := tc.Get(model.ResourceLeasesName, leaderelection.DefaultNamespace, "kube-scheduler")
	require.NoError(t, err)
	require.Equal(t, leader, *obj.(*model.Lease).Spec.HolderIdentity)
	tc.requireBoundOnce()
}

func TestFailoverAfterLeaderCrash(t *testing.T) {
	for _, seed := range []uint64{8, 9, 10} {
		tc := twoReplicas(t, seed)
		old := tc.leaders()[0]
		tc.createPod(podSpec{name: "before"})
		tc.runUntilBound(10*time.Second, "before")
		tc.Host(old).Crash()
		crashAt := tc.W.Now()
		names := podNames(1, 4)
		for _, n := range names {
			tc.createPod(podSpec{name: n, cpu: "100m"})
		}
		tc.Run(30 * time.Second)
		require.Len(t, tc.leaders(), 2, "seed %d: the crash emits no Leading=false; the other now leads too", seed)
		next := tc.leading[len(tc.leading)-1]
		require.NotEqual(t, old, next.Identity)
		require.True(t, next.Leading.Leading)
		took := next.at.Sub(crashAt)
		// The lease was renewed at most RetryPeriod before the crash; the
		// standby notices its last change within a jittered retry and takes
		// over LeaseDuration after, at its next retry.
		maxRetry := time.Duration(float64(leaderelection.DefaultRetryPeriod) * (1 + leaderelection.JitterFactor))
		require.Greater(t, took, leaderelection.DefaultLeaseDuration-leaderelection.DefaultRetryPeriod, "seed %d", seed)
		require.Less(t, took, leaderelection.DefaultLeaseDuration+2*maxRetry, "seed %d", seed)
		pods := tc.runUntilBound(10*time.Second, names...)
		for _, n := range names {
			require.NotEmpty(t, pods[n].Spec.NodeName)
		}
		for _, b := range tc.bound {
			if b.Pod != "default/before" {
				require.Equal(t, next.Identity, b.Scheduler, "seed %d", seed)
			}
		}
		tc.requireBoundOnce()
	}
}

func TestLostLeadershipRestartsTheProcess(t *testing.T) {
	tc := twoReplicas(t, 11)
	old := tc.leaders()[0]
	cuts := tc.W.Network().Isolate(tc.Host(old).ID())
	isolatedAt := tc.W.Now()
	tc.Run(30 * time.Second)
	tc.W.Network().Restore(cuts)

	// The isolated leader stepped down after RenewDeadline (10 s, give or
	// take a retry) and before the other took over (15 s after the last
	// renewal it saw).
	require.GreaterOrEqual(t, len(tc.leading), 3)
	stop, next := tc.leading[1], tc.leading[2]
	require.Equal(t, old, stop.Identity)
	require.False(t, stop.Leading.Leading)
	require.Less(t, stop.at.Sub(isolatedAt), leaderelection.DefaultRenewDeadline+leaderelection.DefaultRetryPeriod+time.Second)
	require.NotEqual(t, old, next.Identity)
	require.True(t, next.Leading.Leading)
	require.LessOrEqual(t, stop.at, next.at, "no two leaders at once")

	// The process exited and was restarted as a standby: a fresh state.
	s := tc.scheduler(old)
	require.Equal(t, 1, s.Restarts())
	require.False(t, s.Leading())
	require.Nil(t, s.Pending())

	// The new leader schedules; the restarted one does not.
	tc.createPod(podSpec{name: "after"})
	tc.runUntilBound(10*time.Second, "after")
	require.Equal(t, next.Identity, tc.bound[len(tc.bound)-1].Scheduler)
	require.Equal(t, []string{next.Identity}, tc.leaders())
	tc.requireBoundOnce()
}

// runHash runs a small scheduling scenario and returns the trace hash.
func runHash(t *testing.T, seed uint64) uint64 {
	tc := twoReplicas(t, seed)
	for _, n := range podNames(1, 8) {
		tc.createPod(podSpec{name: n})
	}
	tc.Run(10 * time.Second)
	tc.Host(tc.leaders()[0]).Crash()
	tc.Run(40 * time.Second)
	return tc.W.Trace().Hash()
}

func TestDeterminism(t *testing.T) {
	a, b := runHash(t, 12), runHash(t, 12)
	require.Equal(t, a, b)
	require.NotEqual(t, a, runHash(t, 13))
}
