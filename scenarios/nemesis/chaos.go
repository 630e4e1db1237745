package nemesis

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// ChaosSchedule draws a random fault schedule from rng: roughly one fault
// every 10 virtual seconds, each lasting 1 to 15 s, chosen among crashes,
// torn-write crashes, partitions of the members (clients land on a random
// side), one-way cuts, isolation, pauses, flaky links, a member's clock
// drifting up to 20% fast or slow, a member's disk slow to fsync, and
// faults aimed at a moment (a leader just elected, a learner present, a
// snapshot being sent: the fault of the moment's example lands when the
// trace shows it, within its drawn span). Faults may
// overlap; all end by end. It never wipes a disk: a member that loses its
// disk and rejoins under its old identity breaks Raft by design (the etcd
// amnesia case), which is a lesson of its own, not chaos to survive.
func ChaosSchedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	return EtcdChaos.Schedule(c, rng, end)
}

// EtcdChaos is ChaosSchedule's generator, whose kinds a swarm run
// switches on and off.
var EtcdChaos = Chaos{kinds: kindNames(etcdKinds(nil, nil)), draw: func(c *Cluster, rng *sim.Stream, end time.Duration, on []bool) sim.Schedule {
	return drawEtcdChaos(c, rng, end, on, 1)
}}

// drawEtcdChaos draws ChaosSchedule's faults of the kinds on, busy times
// as often.
func drawEtcdChaos(c *Cluster, rng *sim.Stream, end time.Duration, on []bool, busy int) sim.Schedule {
	start, dur, gap := span{5 * time.Second, 5 * time.Second}, span{time.Second, 14 * time.Second}, span{3 * time.Second, 14 * time.Second}
	return drawKinds(rng, start, dur, gap.div(busy), end, etcdKinds(c, rng), on)
}

// etcdKinds are the kinds of fault of ChaosSchedule, drawing from rng.
func etcdKinds(c *Cluster, rng *sim.Stream) []chaosKind {
	pick := func() string { return c.Members[rng.IntN(len(c.Members))] }
	return []chaosKind{
		{"crash", 25, func(f *sim.Fault) { f.Kind, f.Targets = sim.FaultCrash, [][]string{{pick()}} }},
		{"torn", 5, func(f *sim.Fault) { f.Kind, f.Targets = sim.FaultTorn, [][]string{{pick()}} }},
		{"partition", 20, func(f *sim.Fault) { f.Kind, f.Targets = sim.FaultPartition, randomSplit(c, rng) }},
		{"oneway", 8, func(f *sim.Fault) {
			a, b := pick(), pick()
			if a == b {
				f.Kind, f.Targets = sim.FaultIsolate, [][]string{{a}}
			} else {
				f.Kind, f.Targets = sim.FaultOneWay, [][]string{{a}, {b}}
			}
		}},
		{"isolate-leader", 10, func(f *sim.Fault) { f.Kind, f.Targets = sim.FaultIsolate, [][]string{{"etcd-leader"}} }},
		{"pause", 12, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultPause, [][]string{{pick()}}
			f.For = f.For / 3
		}},
		{"flaky", 10, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultFlaky, [][]string{{pick()}}
			drawFlaky(f, rng, 30, 10, 20, 20)
		}},
		{"clock-drift", 5, func(f *sim.Fault) {
			// A clock 20% fast or slow at most: Raft's ticks, and so its
			// heartbeats and election timeouts, run at that rate.
			f.Kind, f.Targets = sim.FaultClockDrift, [][]string{{pick()}}
			f.Rate = float64(80+rng.IntN(41)) / 100
		}},
		{"slow-disk", 5, func(f *sim.Fault) {
			// fsyncs of 50 to 500 ms: etcd warns of slow fdatasync at 1 s.
			f.Kind, f.Targets = sim.FaultSlowDisk, [][]string{{pick()}}
			f.Fsync = time.Duration(50+rng.IntN(451)) * time.Millisecond
		}},
		aimedKind("etcd", 8, rng, "leader-elected", "learner-present", "snapshot-sent"),
	}
}

// randomSplit splits the members in two non-empty groups (when there are
// two or more), and puts each client host on a random side.
func randomSplit(c *Cluster, rng *sim.Stream) [][]string {
	if len(c.Members) < 2 {
		return [][]string{c.Members, c.Clients}
	}
	perm := rng.Perm(len(c.Members))
	k := 1 + rng.IntN(len(c.Members)-1)
	var a, b []string
	for i, p := range perm {
		if i < k {
			a = append(a, c.Members[p])
		} else {
			b = append(b, c.Members[p])
		}
	}
	for _, cl := range c.Clients {
		if rng.IntN(2) == 0 {
			a = append(a, cl)
		} else {
			b = append(b, cl)
		}
	}
	return [][]string{a, b}
}
