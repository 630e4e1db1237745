package leaderelection_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

func (e *election) others(leader string) []string {
	var out []string
	for _, h := range e.hosts {
		if h.Name() != leader {
			out = append(out, h.Name())
		}
	}
	return out
}

// TestClockStepsDoNotMoveLeadership: client-go judges a lease by when it
// observed the record change, on its own monotonic clock, never by the
// renewTime the holder wrote, nor by its wall clock: when the leader is
// cut off just as the others' wall clocks step a minute forward, they
// still wait a whole lease duration, so the deposed leader has stepped
// down first. The lease carries the holder's wall clock, stepped back.
func TestClockStepsDoNotMoveLeadership(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		e := newElection(t, seed, 3)
		leader := e.leaderAfter(t, 20*time.Second)
		e.World.Inject(sim.Fault{Kind: sim.FaultClockJump, Targets: [][]string{{leader}}, By: -time.Hour})
		e.World.RunFor(5 * time.Second)
		lease := e.Backend.Objects["leases/kube-system/kube-controller-manager"].(*model.Lease)
		ago := e.World.Now().Sub(sim.Time(*lease.Spec.RenewTime))
		require.True(t, ago >= time.Hour && ago < time.Hour+3*time.Second, "seed %d: renewTime %v behind", seed, ago)

		cutAt := e.World.Now()
		e.World.Inject(sim.Fault{Kind: sim.FaultIsolate, Targets: [][]string{{leader}}})
		e.World.Inject(sim.Fault{Kind: sim.FaultClockJump, Targets: [][]string{e.others(leader)}, By: time.Minute})
		e.World.RunFor(time.Minute)
		require.Len(t, e.intervals, 2, "seed %d", seed)
		e.requireNoOverlap(t)
		lo, hi := takeoverWindow(1)
		within(t, e.intervals[1].start.Sub(cutAt), lo, hi, seed)
	}
}

// TestFastClockTakesOverSooner: a candidate measures the lease duration
// on its own clock: with clocks running twice as fast, the others take
// over a crashed leader's lease in about half the virtual time.
func TestFastClockTakesOverSooner(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		e := newElection(t, seed, 3)
		old := e.leaderAfter(t, 30*time.Second)
		e.World.Inject(sim.Fault{Kind: sim.FaultClockDrift, Targets: [][]string{e.others(old)}, Rate: 2})
		crashAt := e.World.Now()
		e.host(old).Crash()
		e.World.RunFor(time.Minute)
		require.Len(t, e.intervals, 2, "seed %d", seed)
		lo, hi := takeoverWindow(2)
		within(t, e.intervals[1].start.Sub(crashAt), lo, hi, seed)
	}
}

// TestWallClockAblationTakesOverALiveLeader: with leader-uses-wall-clock,
// a candidate judges the lease by the holder's renewTime against its own
// wall clock, so a minute's step forward of the others' wall clocks lets
// one of them take the lease of a leader that renews it: two leaders at
// once (without the ablation, TestClockStepsDoNotMoveLeadership).
func TestWallClockAblationTakesOverALiveLeader(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		e := newElectionWith(t, seed, 3, ablation.Of(ablation.LeaderUsesWallClock))
		leader := e.leaderAfter(t, 20*time.Second)
		e.World.Inject(sim.Fault{Kind: sim.FaultClockJump, Targets: [][]string{e.others(leader)}, By: time.Minute})
		e.World.RunFor(6 * time.Second)
		require.Len(t, e.intervals, 2, "seed %d: a candidate took the lease at once", seed)
		old := e.intervals[0]
		require.True(t, old.end < 0 || e.intervals[1].start < old.end, "seed %d: while the old leader still led", seed)
	}
}
