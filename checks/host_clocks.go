package checks

import (
	"math"
	"slices"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// hostClocks rebuilds every host's monotonic clock from the trace's
// clock-drift faults, as sim's clock runs it: at the product of the rates
// of the drifts in force, the world's rate without any. A check converts
// what a process measured on its own clock (a renew deadline, a lease
// duration) into the world's time with it. Clock jumps step wall clocks
// only, so they do not matter here.
//
// A "clock-drift-healed" event does not say which drift ended: while
// drifts of different rates overlap on a host and one of them ends, the
// rate is unknown until none is left, and elapsed reports it cannot tell.
type hostClocks struct {
	hosts map[sim.HostID]*hostClock
}

// hostClock is one host's clock: the rate it ran at since each change.
type hostClock struct {
	segs  []clockSeg
	rates []float64 // the rates of the drifts in force
	lost  bool      // which drift ended was ambiguous; until none is left
}

// clockSeg: from since on (until the next segment), the clock ran at rate
// local nanoseconds per world nanosecond; NaN when unknown.
type clockSeg struct {
	since sim.Time
	rate  float64
}

func newHostClocks() hostClocks { return hostClocks{hosts: map[sim.HostID]*hostClock{}} }

// observe follows a fault event.
func (c *hostClocks) observe(e *sim.Event) {
	if e.Kind != sim.KindFault || e.Host == sim.NoHost {
		return
	}
	fe := sim.ParseFaultEvent(e.Name)
	if fe.Kind != sim.FaultClockDrift || fe.Unresolved {
		return
	}
	h := getOrNew(c.hosts, e.Host, func() *hostClock { return &hostClock{} })
	if fe.Ends {
		h.end()
	} else if d, ok := e.Data.(*sim.FaultDetail); ok {
		h.rates = append(h.rates, d.Rate)
	}
	h.segs = append(h.segs, clockSeg{since: e.At, rate: h.rate()})
}

// end removes a drift that ended, unknown which.
func (h *hostClock) end() {
	if len(h.rates) == 0 {
		return
	}
	if slices.Min(h.rates) != slices.Max(h.rates) {
		h.lost = true
	}
	h.rates = h.rates[1:]
	if len(h.rates) == 0 {
		h.lost = false
	}
}

// rate is the rate in force, NaN when unknown.
func (h *hostClock) rate() float64 {
	if h.lost {
		return math.NaN()
	}
	r := 1.0
	for _, x := range h.rates {
		r = float64(r * x)
	}
	return r
}

// elapsed is how much host's monotonic clock advanced from world time a to
// b (a <= b); ok is false when the trace cannot tell.
func (c *hostClocks) elapsed(host sim.HostID, a, b sim.Time) (d time.Duration, ok bool) {
	h := c.hosts[host]
	if h == nil || b <= a {
		return time.Duration(b - a), true
	}
	var sum float64
	rate, from := 1.0, a
	for _, s := range h.segs {
		if s.since <= a {
			rate = s.rate
			continue
		}
		if s.since >= b {
			break
		}
		sum += float64(s.since-from) * rate
		rate, from = s.rate, s.since
	}
	sum += float64(b-from) * rate
	if math.IsNaN(sum) {
		return 0, false
	}
	return time.Duration(math.Round(sum)), true
}

// after is the world time at which host's clock has advanced d from world
// time a, assuming the rate in force last goes on; ok is false when the
// trace cannot tell.
func (c *hostClocks) after(host sim.HostID, a sim.Time, d time.Duration) (t sim.Time, ok bool) {
	h := c.hosts[host]
	if h == nil {
		return a.Add(d), true
	}
	left := float64(d)
	rate, from := 1.0, a
	for _, s := range h.segs {
		if s.since <= a {
			rate = s.rate
			continue
		}
		if math.IsNaN(rate) {
			return 0, false
		}
		if adv := float64(s.since-from) * rate; adv >= left {
			break
		} else {
			left -= adv
		}
		rate, from = s.rate, s.since
	}
	if math.IsNaN(rate) || rate <= 0 {
		return 0, false
	}
	return from + sim.Time(math.Ceil(left/rate)), true
}

// rateAt is host's clock rate at world time t (NaN when unknown), for
// reports.
func (c *hostClocks) rateAt(host sim.HostID, t sim.Time) float64 {
	h := c.hosts[host]
	rate := 1.0
	if h == nil {
		return rate
	}
	for _, s := range h.segs {
		if s.since > t {
			break
		}
		rate = s.rate
	}
	return rate
}
