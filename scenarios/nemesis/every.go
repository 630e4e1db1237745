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
