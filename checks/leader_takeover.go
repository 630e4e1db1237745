package checks

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// LeaderTakeoverOptions configure the leader-takeover check.
type LeaderTakeoverOptions struct {
	// Component is the leader-elected component to judge, e.g.
	// "kube-controller-manager".
	Component string
	// Bound is how long after its leader's host was cut off, paused or
	// crashed another replica must lead. Default DefaultTakeoverBound.
	Bound time.Duration
}

// DefaultTakeoverBound is LeaderTakeoverOptions.Bound's default, from
// client-go's defaults: a candidate reads the lease every retry period
// (2 s, jittered up to 2 s x 2.2 = 4.4 s), so it may first see the last
// renewal before the fault up to 4.4 s after the fault; it takes the lease
// once it has seen no change for the lease duration (15 s), at its next
// attempt (up to 4.4 s later again); 1 s more covers the requests. 24.8 s.
const DefaultTakeoverBound = 15*time.Second + 2*4400*time.Millisecond + time.Second

// LeaderTakeover checks client-go leader election on Leases as the
// component's replicas report it (spoketrace.Leading):
//   - never two leaders at once: a replica starts leading only after the
//     previous leader stopped (its Leading=false, or its host crashed). A
//     leader cut off from the API servers steps down at its renew
//     deadline (10 s), before the others may take its lease (15 s);
//   - when the leader's host is cut off (a partition, isolate or one-way
//     fault naming it), paused or crashed, and it loses its leadership (it
//     crashed, or stepped down), a replica leads again within Bound of
//     the fault. A leader that rode out a short fault without stepping
//     down lost nothing.
//
// It measures "takeover_s", the longest such takeover (-1 if none).
type LeaderTakeover struct {
	opts    LeaderTakeoverOptions
	rec     Recorder
	leader  string
	host    sim.HostID
	lost    sim.Time // when the current leader's host was hit, 0 if not
	lostSeq uint64
	// hitLeader is who led when its host was hit.
	hitLeader string
	confirmed bool // the hit leader crashed or stepped down
	worst     time.Duration
	takes     int
}

// NewLeaderTakeover returns the "leader-takeover" check.
func NewLeaderTakeover(opts LeaderTakeoverOptions) *LeaderTakeover {
	if opts.Bound <= 0 {
		opts.Bound = DefaultTakeoverBound
	}
	return &LeaderTakeover{opts: opts, host: sim.NoHost, worst: -1}
}

// Name implements Check.
func (c *LeaderTakeover) Name() string { return "leader-takeover" }

// Observe implements Check.
func (c *LeaderTakeover) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		if c.leader == "" || e.Host != c.host {
			return
		}
		switch {
		case sim.FaultKind(e.Name).CrashesHost():
			c.hit(e)
			c.confirmed = true
			c.leader, c.host = "", sim.NoHost // a crashed leader leads no more
		case sim.FaultKind(e.Name).CutsLinks(), e.Name == string(sim.FaultPause):
			c.hit(e)
		}
		return
	}
	d, ok := e.Data.(*spoketrace.Leading)
	if !ok || d.Component != c.opts.Component {
		return
	}
	switch {
	case d.Leading && c.leader != "" && c.leader != d.Identity:
		c.rec.Add(e, "%s started leading %s while %s still led", d.Identity, d.Component, c.leader)
		c.leader, c.host = d.Identity, e.Host
	case d.Leading:
		if c.lost != 0 && c.confirmed {
			c.took(e)
		}
		c.lost = 0
		c.leader, c.host = d.Identity, e.Host
	case d.Identity == c.leader:
		if c.lost != 0 && d.Identity == c.hitLeader {
			c.confirmed = true
		}
		c.leader, c.host = "", sim.NoHost
	}
}

// hit records that the current leader's host was hit at e.
func (c *LeaderTakeover) hit(e *sim.Event) {
	if c.lost == 0 {
		c.lost, c.lostSeq, c.hitLeader, c.confirmed = e.At, e.Seq, c.leader, false
	}
}

// took records a takeover at e.
func (c *LeaderTakeover) took(e *sim.Event) {
	d := e.At.Sub(c.lost)
	c.takes++
	c.worst = max(c.worst, d)
	if d > c.opts.Bound {
		c.rec.Add(e, "%s took over %s %.1f s after its leader %s was cut off or crashed, more than %v", e.Data.(*spoketrace.Leading).Identity,
			c.opts.Component, d.Seconds(), c.hitLeader, c.opts.Bound)
	}
	c.lost = 0
}

// Finish implements Check.
func (c *LeaderTakeover) Finish() Result {
	if c.lost != 0 && c.confirmed {
		c.rec.Add(&sim.Event{At: c.lost, Seq: c.lostSeq}, "no replica of %s took over after its leader %s was cut off or crashed", c.opts.Component, c.hitLeader)
	}
	detail := fmt.Sprintf("%s: never two leaders; %d takeover(s)", c.opts.Component, c.takes)
	if c.takes > 0 {
		detail += fmt.Sprintf(", the slowest %.1f s after the leader was lost (bound %v)", c.worst.Seconds(), c.opts.Bound)
	}
	return c.rec.Result(c.Name(), detail)
}

// Measures implements Measurer: takeover_s.
func (c *LeaderTakeover) Measures() map[string]float64 {
	if c.takes == 0 {
		return map[string]float64{"takeover_s": -1}
	}
	return map[string]float64{"takeover_s": c.worst.Seconds()}
}

var (
	_ Check    = (*LeaderTakeover)(nil)
	_ Measurer = (*LeaderTakeover)(nil)
)
