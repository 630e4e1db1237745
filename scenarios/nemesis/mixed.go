package nemesis

import (
	"maps"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// mixedKinds are the parts of the mixed profile, as a swarm run reports
// them.
var mixedKinds = []string{"crash-restart", "partitions", "flaky-network"}

// genMixed draws crash-restart, partitions and a flaky network at once.
// With swarm=true each is on with probability 1/2, at least one, drawn
// from the world's SwarmStream and recorded in c.SwarmKinds; crashes
// without partitions come twice as often (half the mttf), and partitions
// without crashes at twice the rate, so that a run has about as many
// faults. (A flaky network is one fault for the whole run.)
func genMixed(p params, c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	on := []bool{true, true, true}
	if p["swarm"] == "true" {
		on = SwarmPick(c.World.Rand(SwarmStream), len(mixedKinds))
		c.SwarmKinds = nil
		for i, k := range mixedKinds {
			if on[i] {
				c.SwarmKinds = append(c.SwarmKinds, k)
			}
		}
		p = maps.Clone(p)
		if on[0] && !on[1] {
			p["mttf"] = (p.dur("mttf") / 2).String()
		}
		if on[1] && !on[0] {
			p["rate"] = strconv.FormatFloat(2*p.num("rate"), 'g', -1, 64)
		}
	}
	var s sim.Schedule
	if on[0] {
		s = append(s, genCrashRestart(p, c, rng, end)...)
	}
	if on[1] {
		s = append(s, genPartitions(p, c, rng, end)...)
	}
	if on[2] {
		s = append(s, genFlaky(p, c, rng, end)...)
	}
	return s
}
