package leaderelection_test

import (
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/internal/fakeapi"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/sim"
	"github.com/stretchr/testify/require"
)

// interval is one stretch of leadership a candidate believed it had, in
// virtual time (the candidates' clocks may be off).
type interval struct {
	who        string
	start, end sim.Time // end is -1 while leading
}

type election struct {
	*fakeapi.Cluster
	hosts     []*sim.Host
	electors  map[string]*leaderelection.LeaderElector
	intervals []*interval
	newLeader map[string][]string
	renewals  map[string]int
}

func newElection(t *testing.T, seed uint64, n int) *election {
	return newElectionWith(t, seed, n, ablation.Set{})
}

// newElectionWith is newElection with the electors' ablations abl.
func newElectionWith(t *testing.T, seed uint64, n int, abl ablation.Set) *election {
	return newElectionOpts(t, seed, n, abl, false)
}

// newElectionOpts is newElection with the electors' ablations abl and
// ReleaseOnCancel set to release.
func newElectionOpts(t *testing.T, seed uint64, n int, abl ablation.Set, release bool) *election {
	e := &election{Cluster: fakeapi.NewCluster(seed, 1), electors: map[string]*leaderelection.LeaderElector{}, newLeader: map[string][]string{},
		renewals: map[string]int{}}
	for i := 1; i <= n; i++ {
		name := "kcm-" + strconv.Itoa(i)
		h := e.AddHost(name, func(h *sim.Host) {
			c := client.New(h, client.Config{Servers: e.Servers, User: "system:kube-controller-manager",
				Timeout: leaderelection.DefaultRenewDeadline})
			var cur *interval
			le, err := leaderelection.NewLeaderElector(leaderelection.Config{
				Client: c, Name: "kube-controller-manager", Identity: name, Ablations: abl, ReleaseOnCancel: release,
				Callbacks: leaderelection.LeaderCallbacks{
					OnStartedLeading: func() {
						cur = &interval{who: name, start: h.World().Now(), end: -1}
						e.intervals = append(e.intervals, cur)
					},
					OnStoppedLeading: func() {
						if cur != nil {
							cur.end = h.World().Now()
							cur = nil
						}
					},
					OnNewLeader: func(id string) { e.newLeader[name] = append(e.newLeader[name], id) },
					OnRenewed:   func() { e.renewals[name]++ },
				},
			})
			require.NoError(t, err)
			h.OnCrash(func() {
				if cur != nil {
					cur.end = h.World().Now() // the process is gone: it leads no more
					cur = nil
				}
			})
			e.electors[name] = le
			le.Run()
		})
		e.hosts = append(e.hosts, h)
	}
	return e
}

// leaders returns who believes it leads now.
func (e *election) leaders() []string {
	var out []string
	for _, iv := range e.intervals {
		if iv.end < 0 {
			out = append(out, iv.who)
		}
	}
	return out
}

func (e *election) host(name string) *sim.Host {
	h, _ := e.World.HostByName(name)
	return h
}

// leaderAfter runs the election for d and returns its one leader.
func (e *election) leaderAfter(t *testing.T, d time.Duration) string {
	t.Helper()
	e.World.RunFor(d)
	leader := e.leaders()
	require.Len(t, leader, 1)
	return leader[0]
}

// takeoverWindow bounds how long the others take to take over a lease
// whose holder stopped renewing, in virtual time, when their clocks run
// at rate: the lease was renewed at most RetryPeriod before; they notice
// its last change within one jittered retry, wait LeaseDuration from then,
// and try again within another.
func takeoverWindow(rate float64) (lo, hi time.Duration) {
	maxRetry := time.Duration(float64(leaderelection.DefaultRetryPeriod) * (1 + leaderelection.JitterFactor))
	lo = leaderelection.DefaultLeaseDuration - leaderelection.DefaultRetryPeriod
	hi = leaderelection.DefaultLeaseDuration + 2*maxRetry + time.Second
	return time.Duration(float64(lo) / rate), time.Duration(float64(hi) / rate)
}

func within(t *testing.T, got, lo, hi time.Duration, seed uint64) {
	t.Helper()
	require.True(t, got > lo && got < hi, "seed %d: %v, want within (%v, %v)", seed, got, lo, hi)
}

// requireNoOverlap asserts that no two candidates believed they led at the
// same virtual time.
func (e *election) requireNoOverlap(t *testing.T) {
	t.Helper()
	ivs := append([]*interval(nil), e.intervals...)
	sort.SliceStable(ivs, func(i, j int) bool { return ivs[i].start < ivs[j].start })
	for i := 1; i < len(ivs); i++ {
		prev := ivs[i-1]
		require.True(t, prev.end >= 0 && prev.end <= ivs[i].start,
			"%s led from %v to %v, %s from %v", prev.who, prev.start, prev.end, ivs[i].who, ivs[i].start)
	}
}

func TestOneLeaderAmongThree(t *testing.T) {
	e := newElection(t, 1, 3)
	e.World.RunFor(time.Minute)
	require.Len(t, e.intervals, 1)
	leader := e.leaders()
	require.Len(t, leader, 1)
	for name := range e.electors {
		require.Equal(t, leader, e.newLeader[name][:1], "%s saw the leader", name)
	}
	lease := e.Backend.Objects["leases/kube-system/kube-controller-manager"].(*model.Lease)
	require.Equal(t, leader[0], *lease.Spec.HolderIdentity)
	// OnRenewed tells of every renewal, one per RetryPeriod.
	require.InDelta(t, 30, e.renewals[leader[0]], 2)
	require.Len(t, e.renewals, 1, "only the leader renews")
	require.Equal(t, int32(15), *lease.Spec.LeaseDurationSeconds)
	// The leader renews every RetryPeriod.
	require.InDelta(t, float64(e.World.Now()), float64(*lease.Spec.RenewTime), float64(2100*time.Millisecond))
}

func TestFailoverAfterLeaderCrash(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		e := newElection(t, seed, 3)
		old := e.leaderAfter(t, 30*time.Second)
		crashAt := e.World.Now()
		e.host(old).Crash()
		e.World.RunFor(time.Minute)
		require.Len(t, e.intervals, 2, "seed %d", seed)
		next := e.intervals[1]
		lo, hi := takeoverWindow(1)
		within(t, next.start.Sub(crashAt), lo, hi, seed)
		require.NotEqual(t, old, next.who)
		e.requireNoOverlap(t)
		lease := e.Backend.Objects["leases/kube-system/kube-controller-manager"].(*model.Lease)
		require.Equal(t, int32(1), *lease.Spec.LeaseTransitions)
	}
}

func TestPartitionedLeaderStepsDownBeforeTakeover(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		e := newElection(t, seed, 3)
		e.World.RunFor(20 * time.Second)
		old := e.leaders()
		require.Len(t, old, 1)
		cuts := e.World.Network().Isolate(e.host(old[0]).ID())
		e.World.RunFor(40 * time.Second)
		e.World.Network().Restore(cuts)
		e.World.RunFor(40 * time.Second)
		require.GreaterOrEqual(t, len(e.intervals), 2, "seed %d", seed)
		e.requireNoOverlap(t)
		stepDown := e.intervals[0].end
		require.Less(t, stepDown.Sub(20*sim.Time(time.Second)), leaderelection.DefaultRenewDeadline+leaderelection.DefaultRetryPeriod+time.Second)
		now := e.leaders()
		require.Len(t, now, 1, "seed %d", seed)
		require.NotEqual(t, old[0], now[0], "the deposed elector stopped; the new leader still leads")
	}
}

func TestConfigValidation(t *testing.T) {
	e := fakeapi.NewCluster(1, 1)
	var c *client.Client
	e.AddHost("x", func(h *sim.Host) { c = client.New(h, client.Config{Servers: e.Servers}) })
	e.World.RunFor(0)
	_, err := leaderelection.NewLeaderElector(leaderelection.Config{Client: c, Name: "l", Identity: "x", LeaseDuration: 5 * time.Second})
	require.Error(t, err, "lease duration must exceed renew deadline")
	_, err = leaderelection.NewLeaderElector(leaderelection.Config{Client: c, Name: "l", Identity: "x", RetryPeriod: 9 * time.Second})
	require.Error(t, err)
	_, err = leaderelection.NewLeaderElector(leaderelection.Config{Client: c, Name: "l", Identity: "x"})
	require.NoError(t, err)
}

// TestLeaderRetriesAFailedRenewal: a renewal that fails is retried every
// RetryPeriod until RenewDeadline (client-go
// tools/leaderelection/leaderelection.go, renew: wait.PollImmediateUntil
// of tryAcquireOrRenew at RetryPeriod under a RenewDeadline context), so a
// leader whose API server refuses it for less than RenewDeadline keeps
// leading: no step-down, no new leader, and renewals resume.
func TestLeaderRetriesAFailedRenewal(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		e := newElection(t, seed, 3)
		leader := e.leaderAfter(t, 20*time.Second)
		e.Server(0).Unavailable = true
		e.World.RunFor(5 * time.Second) // two or three renewals refused with 503
		e.Server(0).Unavailable = false
		before := e.renewals[leader]
		e.World.RunFor(30 * time.Second)
		require.Len(t, e.intervals, 1, "seed %d: the leader stepped down over a refusal shorter than its renew deadline", seed)
		require.Equal(t, []string{leader}, e.leaders(), "seed %d", seed)
		require.Greater(t, e.renewals[leader], before+10, "seed %d: renewals resumed", seed)
	}
}
