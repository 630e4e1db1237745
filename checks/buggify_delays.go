package checks

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// BuggifyDelays follows, from the trace alone (sim.BuggifyEvent), the
// delays BUGGIFY's points drew in a run that has it on: an apply that
// lagged, a peer stream or a watch stream held back, a watch cache that
// fell behind, a 429's Retry-After. Each is legal, and each makes
// something later than a quiet cluster would: a check that bounds how
// long something takes (a latency bound, not a safety property) asks
// Stretch how far its bound stretches, as it asks FaultWindows whether a
// fault excuses a late event. In a run without BUGGIFY it sees nothing
// and stretches nothing.
//
// The zero value is ready to use.
type BuggifyDelays struct {
	fired []buggifyDelay
}

// buggifyDelay is one firing that drew a delay.
type buggifyDelay struct {
	at    sim.Time
	point sim.BuggifyPoint
	d     time.Duration
}

// Observe notes e if it is a BUGGIFY firing with a delay; it ignores any
// other event.
func (b *BuggifyDelays) Observe(e *sim.Event) {
	if e.Kind != sim.KindNode {
		return
	}
	if f, ok := e.Data.(*sim.BuggifyEvent); ok && f.Delay > 0 {
		b.fired = append(b.fired, buggifyDelay{at: e.At, point: f.Point, d: f.Delay})
	}
}

// Stretch is how much BUGGIFY may have delayed something that happened
// between from and to: for each point, the longest delay it drew whose
// span (from its firing to its firing plus the delay) overlaps [from,
// to], summed over the points. A max per point, not a sum of every
// firing, because one request's path (a client, an API server, its
// cache, the etcd leader, a follower) passes each point about once,
// whereas the cluster as a whole fires them many times a second.
func (b *BuggifyDelays) Stretch(from, to sim.Time) time.Duration {
	var longest map[sim.BuggifyPoint]time.Duration
	for i := len(b.fired) - 1; i >= 0; i-- {
		f := b.fired[i]
		if f.at > to {
			continue
		}
		if f.at.Add(f.d) < from {
			// Firings are in time order, and no point draws more than
			// maxBuggifyDelay: none earlier can reach from.
			if f.at.Add(maxBuggifyDelay) < from {
				break
			}
			continue
		}
		if longest == nil {
			longest = map[sim.BuggifyPoint]time.Duration{}
		}
		longest[f.point] = max(longest[f.point], f.d)
	}
	var sum time.Duration
	for _, p := range sim.SortedKeys(longest) {
		sum += longest[p]
	}
	return sum
}

// maxBuggifyDelay is the longest delay any point draws.
var maxBuggifyDelay = func() time.Duration {
	var m time.Duration
	for _, p := range sim.BuggifyPoints() {
		m = max(m, p.Max, p.Min)
	}
	return m
}()
