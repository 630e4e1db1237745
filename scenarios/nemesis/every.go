package nemesis

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Every repeats a fault from first, period apart (with up to 10% jitter),
// while it fits before end.
func Every(first, period, end time.Duration, rng *sim.Stream, f func(at time.Duration) sim.Fault) sim.Schedule {
	var s sim.Schedule
	for at := first; ; {
		fault := f(at)
		if at+fault.For > end {
			return s
		}
		s = append(s, fault)
		at += period + time.Duration(rng.Int64N(int64(period/10)+1))
	}
}

// Periodic is the schedule of one fault repeated: f first at first, then
// period apart (with up to 10% jitter), while it fits before the end of
// the faults.
func Periodic(first, period time.Duration, f sim.Fault) func(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	return func(_ *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
		return Every(first, period, end, rng, func(at time.Duration) sim.Fault {
			g := f
			g.At = at
			return g
		})
	}
}

// drawFlaky sets f's link degradation, drawn from rng in whole percents
// below the given bounds (loss, dup and reorder) and whole milliseconds
// below delayMs.
func drawFlaky(f *sim.Fault, rng *sim.Stream, loss, dup, reorder, delayMs int) {
	f.Loss = float64(rng.IntN(loss)) / 100
	f.Dup = float64(rng.IntN(dup)) / 100
	f.Reorder = float64(rng.IntN(reorder)) / 100
	f.Delay = time.Duration(rng.IntN(delayMs)) * time.Millisecond
}
