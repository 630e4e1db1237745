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

// div is s shrunk n times: a gap drawn from it is n times shorter, so
// that faults come n times as often.
func (s span) div(n int) span {
	return span{s.least / time.Duration(n), s.spread / time.Duration(n)}
}

// drawFaults draws the faults of a chaos schedule: the first at a draw of
// start, each lasting a draw of dur and the next a draw of gap after it,
// while they end by end. choose sets each fault's kind and targets (and
// may shorten it) from a roll in [0, rolls); with no rolls there is
// nothing to choose from, and no fault.
func drawFaults(rng *sim.Stream, start, dur, gap span, end time.Duration, rolls int, choose func(f *sim.Fault, roll int)) sim.Schedule {
	var s sim.Schedule
	if rolls <= 0 {
		return s
	}
	for at := start.draw(rng); ; at += gap.draw(rng) {
		f := sim.Fault{At: at, For: dur.draw(rng)}
		if at+f.For > end {
			return s
		}
		choose(&f, rng.IntN(rolls))
		s = append(s, f)
	}
}

// drawKinds is drawFaults choosing among the kinds that are on, each in
// proportion to its weight.
func drawKinds(rng *sim.Stream, start, dur, gap span, end time.Duration, kinds []chaosKind, on []bool) sim.Schedule {
	total, choose := chooser(kinds, on)
	return drawFaults(rng, start, dur, gap, end, total, choose)
}
