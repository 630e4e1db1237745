package sim

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// A host's clocks. A real machine has two, both driven by its oscillator:
// the monotonic clock (CLOCK_MONOTONIC), which only ever counts elapsed
// time, and the wall clock (CLOCK_REALTIME), which an NTP step, a VM
// resumed from suspend or an operator can set. Go's time.Now() reads both:
// comparisons, Sub and Since between two readings of one process use the
// monotonic one, and so do timers and tickers; a reading written down (a
// metav1.Time in an object, a lease's renewTime) keeps only the wall one,
// and comparing it with time.Now() later compares wall clocks.
//
// kubesim models that split. Host.Now is the monotonic reading, what a
// process measures with (elapsed time, deadlines, back-offs, host timers);
// Host.WallClock is the wall reading, what a process stamps into what it
// writes and compares such stamps with. A clock-drift fault makes both run
// at rate local seconds per virtual second, so that a drifted host's timers
// fire early (rate > 1) or late (rate < 1) in virtual time; a clock-jump
// fault steps only the wall clock, and timers already armed fire when they
// would have. The skew a drift leaves behind stays once the drift ends (the
// clock runs at the true rate again, but ahead or behind): a clock-jump can
// step it back, as NTP would. Without clock faults both read the world's
// virtual time, which the trace keeps using.
type clock struct {
	since  Time          // virtual time of the last rate change
	mono   Time          // the monotonic reading at since
	rate   float64       // local nanoseconds per virtual nanosecond
	skew   time.Duration // wall minus monotonic: the sum of the steps
	drifts []*clockDrift // the clock-drift faults in force, oldest first
}

// clockDrift is one clock-drift fault in force on a host.
type clockDrift struct{ rate float64 }

func newClock() clock { return clock{rate: 1} }

// monoAt is the monotonic reading at virtual time t (not before since).
// The product is rounded explicitly (a conversion), so that no platform
// fuses it into a multiply-add with another rounding.
func (c *clock) monoAt(t Time) Time {
	d := t - c.since
	if c.rate == 1 {
		return c.mono + d
	}
	return c.mono + Time(float64(float64(d)*c.rate))
}

// virtualAt is the first virtual time, not before since, at which the
// monotonic clock reads target or more.
func (c *clock) virtualAt(target Time) Time {
	d := target - c.mono
	if c.rate == 1 {
		return c.since + d
	}
	if d <= 0 {
		return c.since
	}
	t := c.since + Time(math.Ceil(float64(float64(d)/c.rate)))
	for c.monoAt(t) < target {
		t++
	}
	return t
}

// Now is the host's monotonic clock: what its processes measure elapsed
// time, deadlines and timers with (see clock). It drifts with clock-drift
// and never steps; without clock faults it is the world's virtual time.
func (h *Host) Now() Time { return h.clock.monoAt(h.w.now) }

// WallClock is the host's wall clock: what its processes stamp into what
// they write (an object's timestamps, a lease's renewTime) and compare
// such stamps with (see clock). It drifts like Now and also steps with
// clock-jump; without clock faults it is the world's virtual time.
func (h *Host) WallClock() Time { return h.Now().Add(h.clock.skew) }

// stepWallClock moves the wall clock by d (clock-jump).
func (h *Host) stepWallClock(d time.Duration) { h.clock.skew += d }

// startDrift puts a clock-drift in force: the clock's rate is the product
// of the rates in force.
func (h *Host) startDrift(d *clockDrift) {
	h.clock.drifts = append(h.clock.drifts, d)
	h.retime()
}

// endDrift ends a clock-drift.
func (h *Host) endDrift(d *clockDrift) {
	if i := slices.Index(h.clock.drifts, d); i >= 0 {
		h.clock.drifts = slices.Delete(h.clock.drifts, i, i+1)
		h.retime()
	}
}

// retime sets the clock's rate from the drifts in force, from now on, and
// moves the host's armed timers to the virtual time at which the
// monotonic clock reaches their deadline at the new rate.
func (h *Host) retime() {
	rate := 1.0
	for _, d := range h.clock.drifts {
		rate = float64(rate * d.rate)
	}
	now := h.w.now
	h.clock.mono, h.clock.since, h.clock.rate = h.clock.monoAt(now), now, rate
	var armed []*entry
	for _, e := range h.w.queue.items {
		if e.kind == entryTimer && e.timer.host == h {
			armed = append(armed, e)
		}
	}
	// The heap's order is no order: move them in firing order, so that
	// timers due at one instant keep theirs.
	slices.SortFunc(armed, func(a, b *entry) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
	for _, e := range armed {
		h.w.queue.remove(e)
		h.w.schedule(e, h.clock.virtualAt(e.timer.deadline))
	}
}
