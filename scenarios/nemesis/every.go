package nemesis

import (
	"cmp"
	"slices"
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

// Merge returns the faults of the schedules as one schedule in time order;
// faults at the same time keep the order they are given in.
func Merge(schedules ...sim.Schedule) sim.Schedule {
	s := slices.Concat(schedules...)
	slices.SortStableFunc(s, func(a, b sim.Fault) int { return cmp.Compare(a.At, b.At) })
	return s
}

// span is a range of durations to draw from: least, plus up to spread
// more.
type span struct{ least, spread time.Duration }

// draw draws a duration of s from rng.
func (s span) draw(rng *sim.Stream) time.Duration {
	return s.least + time.Duration(rng.Int64N(int64(s.spread)))
}

// drawFaults draws the faults of a chaos schedule: the first at a draw of
// start, each lasting a draw of dur and the next a draw of gap after it,
// while they end by end. choose sets each fault's kind and targets (and
// may shorten it) from a roll in [0, 100).
func drawFaults(rng *sim.Stream, start, dur, gap span, end time.Duration, choose func(f *sim.Fault, roll int)) sim.Schedule {
	var s sim.Schedule
	for at := start.draw(rng); ; at += gap.draw(rng) {
		f := sim.Fault{At: at, For: dur.draw(rng)}
		if at+f.For > end {
			return s
		}
		choose(&f, rng.IntN(100))
		s = append(s, f)
	}
}
