package nemesis

import (
	"slices"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// PickServer draws an API server.
func PickServer(c *Cluster, rng *sim.Stream) string {
	return c.Servers[rng.IntN(len(c.Servers))]
}

// APIChaosSchedule draws a random schedule for an API scenario: the faults
// of ChaosSchedule on the etcd members, and about one fault of the API
// layer every 10 s, each lasting 1 to 15 s: an API server crash, an API
// server cut off from its clients or from etcd, the informers cut off from
// the API servers, flaky links to the API clients, or an etcd leader
// paused just as a watch cache starts over (an aimed fault). All end by
// end.
func APIChaosSchedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	return APIChaos.Schedule(c, rng, end)
}

// APIChaos is APIChaosSchedule's generator: EtcdChaos's kinds, then the
// API layer's. When a swarm run leaves one of the two with no kind on, the
// other draws twice as often, so that a run has about as many faults.
var APIChaos = Chaos{kinds: slices.Concat(EtcdChaos.Kinds(), kindNames(apiKinds(nil, nil))), draw: drawAPIChaos}

// drawAPIChaos draws APIChaosSchedule's faults of the kinds on.
func drawAPIChaos(c *Cluster, rng *sim.Stream, end time.Duration, on []bool) sim.Schedule {
	n := len(EtcdChaos.Kinds())
	busy := 1
	if !anyOn(on[:n]) || !anyOn(on[n:]) {
		busy = 2
	}
	s := drawEtcdChaos(c, rng, end, on[:n], busy)
	start, dur, gap := span{3 * time.Second, 5 * time.Second}, span{time.Second, 14 * time.Second}, span{3 * time.Second, 14 * time.Second}
	return Merge(s, drawKinds(rng, start, dur, gap.div(busy), end, apiKinds(c, rng), on[n:]))
}

// apiKinds are the kinds of fault of the API layer in APIChaosSchedule,
// drawing from rng.
func apiKinds(c *Cluster, rng *sim.Stream) []chaosKind {
	return []chaosKind{
		{"apiserver-crash", 25, func(f *sim.Fault) { f.Kind, f.Targets = sim.FaultCrash, [][]string{{PickServer(c, rng)}} }},
		{"apiserver-clients-cut", 20, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{PickServer(c, rng)}, {"api-clients"}}
		}},
		{"apiserver-etcd-cut", 20, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{PickServer(c, rng)}, {"etcd"}}
		}},
		{"informers-cut", 15, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{"api-informers"}, {"apiservers"}}
		}},
		{"clients-flaky", 20, func(f *sim.Fault) {
			f.Kind, f.Targets = sim.FaultFlaky, [][]string{{"api-clients"}}
			drawFlaky(f, rng, 20, 10, 20, 10)
		}},
		aimedKind("api", 10, rng, "watch-cache-reinit"),
	}
}
