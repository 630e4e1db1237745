package nemesis

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// SwarmStream names the random stream a swarm run draws its fault kinds
// from: a stream of its own, so that the other streams (the schedule's
// among them) draw what they would draw anyway.
const SwarmStream = "scenario/swarm"

// Chaos is a chaos generator whose fault kinds can be switched on and off.
// Schedule draws with every kind on, as the chaos scenarios do; Swarm
// draws with a random subset on, chosen per seed, as swarm testing does
// (Groce et al., "Swarm testing", ISSTA 2012; TigerBeetle's VOPR): a run
// with only partitions and clock faults, with no crash to mask them,
// happens now and then instead of never.
type Chaos struct {
	kinds []string
	// draw draws a schedule with the kinds on[i] says are on.
	draw func(c *Cluster, rng *sim.Stream, end time.Duration, on []bool) sim.Schedule
}

// Kinds lists the generator's fault kinds, in the order Swarm reports
// them.
func (g Chaos) Kinds() []string { return g.kinds }

// Schedule draws a schedule with every kind on.
func (g Chaos) Schedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	on := make([]bool, len(g.kinds))
	for i := range on {
		on[i] = true
	}
	return g.draw(c, rng, end, on)
}

// Swarm switches each of the generator's kinds on with probability 1/2,
// at least one, drawn from the world's SwarmStream; records the kinds on
// in c.SwarmKinds; and draws a schedule from rng with only those, about
// as many faults as Schedule draws.
func (g Chaos) Swarm(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	on := SwarmPick(c.World.Rand(SwarmStream), len(g.kinds))
	c.SwarmKinds = nil
	for i, k := range g.kinds {
		if on[i] {
			c.SwarmKinds = append(c.SwarmKinds, k)
		}
	}
	return g.draw(c, rng, end, on)
}

// SwarmPick switches each of n things on with probability 1/2, drawing
// again until at least one is on: every non-empty subset is equally
// likely.
func SwarmPick(rng *sim.Stream, n int) []bool {
	on := make([]bool, n)
	for n > 0 {
		some := false
		for i := range on {
			on[i] = rng.IntN(2) == 0
			some = some || on[i]
		}
		if some {
			break
		}
	}
	return on
}

// chaosKind is one kind of fault a chaos generator draws: its name (as a
// swarm run reports it), its share of the faults in percent when every
// kind is on, and how it sets a fault's kind, targets and parameters (it
// may draw more from the generator's stream, and shorten the fault).
type chaosKind struct {
	name   string
	weight int
	set    func(f *sim.Fault)
}

// kindNames lists the names of kinds.
func kindNames(kinds []chaosKind) []string {
	var out []string
	for _, k := range kinds {
		out = append(out, k.name)
	}
	return out
}

// anyOn says whether some kind is on.
func anyOn(on []bool) bool {
	for _, b := range on {
		if b {
			return true
		}
	}
	return false
}

// chooser returns drawFaults' choose for the kinds that are on: a roll
// in [0, their total weight) picks one in proportion to its weight. With
// every kind on the weights add up to 100, as drawFaults rolls.
func chooser(kinds []chaosKind, on []bool) (total int, choose func(f *sim.Fault, roll int)) {
	for i, k := range kinds {
		if on[i] {
			total += k.weight
		}
	}
	return total, func(f *sim.Fault, roll int) {
		last := -1
		for i, k := range kinds {
			if !on[i] {
				continue
			}
			if roll < k.weight {
				k.set(f)
				return
			}
			roll -= k.weight
			last = i
		}
		kinds[last].set(f)
	}
}
