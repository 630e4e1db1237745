package leaderelection_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/sim"
)

func (e *election) lease() *model.Lease {
	return e.Backend.Objects["leases/kube-system/kube-controller-manager"].(*model.Lease)
}

// afterRenewal runs the election in small steps until leader has just
// renewed its lease.
func (e *election) afterRenewal(t *testing.T, leader string) {
	t.Helper()
	before := e.renewals[leader]
	for i := 0; i < 400 && e.renewals[leader] == before; i++ {
		e.World.RunFor(10 * time.Millisecond)
	}
	require.Greater(t, e.renewals[leader], before, "%s renews", leader)
}

// TestReleaseWhenRenewalFails: client-go's renew releases the lease when
// its loop ends because a renewal round failed, not only when its context
// is cancelled (client-go tools/leaderelection/leaderelection.go, v0.34,
// renew: "if le.config.ReleaseOnCancel { le.release() }" after wait.Until,
// which a failed round ends by cancel()). The leader's API server goes
// silent just after a renewal and answers again 11 s later: the round that
// began 2 s after the cut times out at its 10 s renew deadline, release
// reads the lease from the recovered server and clears the holder, and
// another candidate takes over at once instead of waiting out the 15 s
// lease. Without ReleaseOnCancel it waits the lease out.
func TestReleaseWhenRenewalFails(t *testing.T) {
	for _, tc := range []struct {
		name         string
		release      bool
		takeoverUpTo time.Duration // after the cut
		takeoverFrom time.Duration
	}{
		// The round times out 12 s after the cut; the others see the
		// empty holder on their next jittered retry (at most 4.4 s).
		{"ReleaseOnCancel", true, 12*time.Second + 5*time.Second, 12 * time.Second},
		{"no release", false, 0, leaderelection.DefaultLeaseDuration - leaderelection.DefaultRetryPeriod},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				e := newElectionOpts(t, seed, 3, ablation.Set{}, tc.release)
				leader := e.leaderAfter(t, 20*time.Second)
				e.afterRenewal(t, leader)
				cutAt := e.World.Now()
				e.Server(0).Silent = true
				e.World.RunFor(11 * time.Second)
				e.Server(0).Silent = false
				e.World.RunFor(40 * time.Second)
				require.GreaterOrEqual(t, len(e.intervals), 2, "seed %d", seed)
				e.requireNoOverlap(t)
				// The round after the cut starts RetryPeriod after the last
				// renewal, which was at most one 10 ms step before the cut,
				// and ends RenewDeadline later (plus the release's two
				// round trips).
				stepDown := e.intervals[0].end.Sub(cutAt)
				within(t, stepDown, 12*time.Second-20*time.Millisecond, 12*time.Second+500*time.Millisecond, seed)
				took := e.intervals[1].start.Sub(cutAt)
				if tc.release {
					within(t, took, tc.takeoverFrom, tc.takeoverUpTo, seed)
				} else {
					require.Greater(t, took, tc.takeoverFrom, "seed %d", seed)
				}
				require.NotEqual(t, leader, e.intervals[1].who)
			}
		})
	}
}

// TestStopReleasesBeforeOnStoppedLeading: cancelling Run's context with
// ReleaseOnCancel writes a record with no holder, LeaseDurationSeconds 1
// and the read record's LeaderTransitions, and OnStoppedLeading, which Run
// defers, comes only once that write is done (client-go
// tools/leaderelection/leaderelection.go, v0.34, Run and release).
func TestStopReleasesBeforeOnStoppedLeading(t *testing.T) {
	e := newElectionOpts(t, 3, 1, ablation.Set{}, true)
	leader := e.leaderAfter(t, 10*time.Second)
	transitions := *e.lease().Spec.LeaseTransitions
	le := e.electors[leader]
	e.host(leader).After(0, "stop", func() {
		le.Stop()
		require.Equal(t, []string{leader}, e.leaders(), "OnStoppedLeading waits for the release")
	})
	e.World.RunFor(5 * time.Second)
	require.Empty(t, e.leaders())
	lease := e.lease()
	require.Equal(t, "", *lease.Spec.HolderIdentity)
	require.Equal(t, int32(1), *lease.Spec.LeaseDurationSeconds)
	require.Equal(t, transitions, *lease.Spec.LeaseTransitions)
	require.False(t, le.IsLeader(), "the released record is the one observed")
}

// TestReleaseLeavesAnotherHoldersLease: release clears the lease only if
// the last record this candidate observed names it (client-go
// tools/leaderelection/leaderelection.go, v0.34, release: "if
// !le.IsLeader() { return true }" after the Get). Another writer (an
// operator, with a long lease) takes the Lease; the leader's renewals see
// it held and fail, its round ends at the renew deadline, and release
// leaves the other holder's record alone.
func TestReleaseLeavesAnotherHoldersLease(t *testing.T) {
	e := newElectionOpts(t, 5, 1, ablation.Set{}, true)
	var admin *client.Client
	e.AddHost("admin", func(h *sim.Host) { admin = client.New(h, client.Config{Servers: e.Servers}) })
	leader := e.leaderAfter(t, 10*time.Second)
	e.afterRenewal(t, leader)
	lease := e.lease().DeepCopy()
	lease.Spec.HolderIdentity = model.Ptr("admin")
	lease.Spec.LeaseDurationSeconds = model.Ptr(int32(3600))
	var werr error = errPending
	admin.Leases("kube-system").Update(lease, func(_ model.Object, err error) { werr = err })
	e.World.RunFor(15 * time.Second)
	require.NoError(t, werr)
	require.Empty(t, e.leaders(), "the leader stepped down")
	require.Equal(t, "admin", *e.lease().Spec.HolderIdentity, "release left the other holder's record")
	require.Equal(t, int32(3600), *e.lease().Spec.LeaseDurationSeconds)
}

var errPending = errorString("pending")

type errorString string

func (e errorString) Error() string { return string(e) }
