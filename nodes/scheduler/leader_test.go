package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
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

// TestLostLeadershipRestartsTheProcess: an isolated leader keeps leading
// until its renew round's deadline, then tries to release the Lease
// (kube-scheduler sets ReleaseOnCancel: true, cmd/kube-scheduler/app/options/options.go,
// makeLeaderElectionConfig), and only when the release has given up does
// OnStoppedLeading run and the process exit (client-go
// tools/leaderelection/leaderelection.go: Run defers OnStoppedLeading
// after renew, and renew calls release after its wait.Until loop). The
// release's read hangs until the elector client's timeout,
// max(1 s, RenewDeadline/2) = 5 s (resourcelock.NewFromKubeconfig), so the
// old leader steps down 15 to 17 s after the cut: its round started at most
// a RetryPeriod after it (RetryPeriod after its last renewal, answered
// before the cut), failed 10 s later, and its release timed out 5 s after
// that. Meanwhile the standby takes the Lease once it has not changed for
// the lease duration since it saw it change (13 to 24 s after the cut):
// client-go has no fencing, and the two may both lead for a moment, the
// isolated one unable to reach the API server.
func TestLostLeadershipRestartsTheProcess(t *testing.T) {
	tc := twoReplicas(t, 11)
	old := tc.leaders()[0]
	cuts := tc.W.Network().Isolate(tc.Host(old).ID())
	isolatedAt := tc.W.Now()
	tc.Run(30 * time.Second)
	tc.W.Network().Restore(cuts)

	require.Len(t, tc.leading, 3)
	var stop, next leadingAt
	for _, l := range tc.leading[1:] {
		if l.Identity == old {
			stop = l
		} else {
			next = l
		}
	}
	require.Equal(t, old, stop.Identity)
	require.False(t, stop.Leading.Leading)
	timeout := leaderelection.ClientTimeout(leaderelection.DefaultRenewDeadline)
	require.Equal(t, 5*time.Second, timeout)
	stepDown := stop.at.Sub(isolatedAt)
	require.GreaterOrEqual(t, stepDown, leaderelection.DefaultRenewDeadline+timeout, "renew deadline, then the release's read times out")
	require.Less(t, stepDown, leaderelection.DefaultRetryPeriod+leaderelection.DefaultRenewDeadline+timeout+time.Second)
	require.NotEmpty(t, next.Identity)
	require.True(t, next.Leading.Leading)
	maxRetry := time.Duration(float64(leaderelection.DefaultRetryPeriod) * (1 + leaderelection.JitterFactor))
	took := next.at.Sub(isolatedAt)
	require.GreaterOrEqual(t, took, leaderelection.DefaultLeaseDuration-leaderelection.DefaultRetryPeriod, "the release never reached the API server: the standby waited out the lease")
	require.Less(t, took, leaderelection.DefaultLeaseDuration+2*maxRetry)

	// The release never landed: the Lease names the new leader.
	obj, err := tc.Get(model.ResourceLeasesName, leaderelection.DefaultNamespace, "kube-scheduler")
	require.NoError(t, err)
	require.Equal(t, next.Identity, *obj.(*model.Lease).Spec.HolderIdentity)

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

// TestReleasedLeaseIsTakenOverAtOnce: a leader cut off for 10 s fails its
// renew round at its deadline, after the cut has healed, so its release
// (ReleaseOnCancel, as kube-scheduler's makeLeaderElectionConfig) reaches
// the API server: the Lease is written with no holder and a 1 s duration
// (client-go tools/leaderelection/leaderelection.go, release), the process
// exits only after that (Run's deferred OnStoppedLeading), and the standby
// takes the free Lease at its next retry (tryAcquireOrRenew takes a Lease
// with an empty holder at once) instead of waiting out the 15 s lease
// duration, unless the old replica's restarted process (up RestartDelay
// later, its first try at once) takes it first: either way the old leader
// steps down before the next one starts.
func TestReleasedLeaseIsTakenOverAtOnce(t *testing.T) {
	for _, seed := range []uint64{11, 14, 15} {
		tc := twoReplicas(t, seed)
		old := tc.leaders()[0]
		cuts := tc.W.Network().Isolate(tc.Host(old).ID())
		isolatedAt := tc.W.Now()
		var released *model.Lease
		tc.W.Subscribe(func(e *sim.Event) {
			if d, ok := e.Data.(*spoketrace.Leading); ok && !d.Leading && released == nil {
				obj, err := tc.Get(model.ResourceLeasesName, leaderelection.DefaultNamespace, "kube-scheduler")
				require.NoError(t, err)
				released = obj.(*model.Lease)
			}
		})
		tc.Run(10 * time.Second)
		tc.W.Network().Restore(cuts)
		tc.Run(20 * time.Second)

		require.Len(t, tc.leading, 3, "seed %d", seed)
		stop, next := tc.leading[1], tc.leading[2]
		require.Equal(t, old, stop.Identity, "seed %d", seed)
		require.False(t, stop.Leading.Leading)
		require.True(t, next.Leading.Leading)
		t.Logf("seed %d: %s stepped down %v after the cut, %s led %v after that", seed, old, stop.at.Sub(isolatedAt), next.Identity, next.at.Sub(stop.at))
		require.NotNil(t, released)
		require.Empty(t, model.Deref(released.Spec.HolderIdentity, ""), "seed %d: released before OnStoppedLeading", seed)
		require.Equal(t, int32(1), model.Deref(released.Spec.LeaseDurationSeconds, 0))
		stepDown := stop.at.Sub(isolatedAt)
		require.Greater(t, stepDown, leaderelection.DefaultRenewDeadline, "seed %d", seed)
		require.Less(t, stepDown, leaderelection.DefaultRetryPeriod+leaderelection.DefaultRenewDeadline+time.Second, "seed %d", seed)
		maxRetry := time.Duration(float64(leaderelection.DefaultRetryPeriod) * (1 + leaderelection.JitterFactor))
		require.Less(t, next.at.Sub(stop.at), maxRetry+time.Second, "seed %d: the released Lease was taken at the next retry", seed)
		require.Less(t, next.at.Sub(isolatedAt), leaderelection.DefaultLeaseDuration, "seed %d: sooner than the lease duration", seed)
		require.Equal(t, 1, tc.scheduler(old).Restarts())
	}
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
