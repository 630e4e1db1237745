package nemesis

import (
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
// the API servers, or flaky links to the API clients. All end by end.
func APIChaosSchedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	s := ChaosSchedule(c, rng, end)
	start, dur, gap := span{3 * time.Second, 5 * time.Second}, span{time.Second, 14 * time.Second}, span{3 * time.Second, 14 * time.Second}
	return Merge(s, drawFaults(rng, start, dur, gap, end, func(f *sim.Fault, r int) {
		switch {
		case r < 25:
			f.Kind, f.Targets = sim.FaultCrash, [][]string{{PickServer(c, rng)}}
		case r < 45:
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{PickServer(c, rng)}, {"api-clients"}}
		case r < 65:
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{PickServer(c, rng)}, {"etcd"}}
		case r < 80:
			f.Kind, f.Targets = sim.FaultPartition, [][]string{{"api-informers"}, {"apiservers"}}
		default:
			f.Kind, f.Targets = sim.FaultFlaky, [][]string{{"api-clients"}}
			drawFlaky(f, rng, 20, 10, 20, 10)
		}
	}))
}
