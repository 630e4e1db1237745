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
// the API servers, or flaky links to the API clients. All end by end.
func APIChaosSchedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	s := ChaosSchedule(c, rng, end)
	at := 3*time.Second + time.Duration(rng.Int64N(int64(5*time.Second)))
	for {
		dur := time.Second + time.Duration(rng.Int64N(int64(14*time.Second)))
		if at+dur > end {
			break
		}
		f := sim.Fault{At: at, For: dur}
		switch r := rng.IntN(100); {
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
			drawFlaky(&f, rng, 20, 10, 20, 10)
		}
		s = append(s, f)
		at += 3*time.Second + time.Duration(rng.Int64N(int64(14*time.Second)))
	}
	slices.SortStableFunc(s, func(a, b sim.Fault) int { return int(a.At - b.At) })
	return s
}
