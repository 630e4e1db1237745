package metrics

import (
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// QuorumTracker measures quorum_up_fraction: the fraction of the fault
// window during which some quorum of etcd members was up, not paused, and
// connected both ways to each other. Availability can be no better than it;
// for independent crash-restart faults its expectation is the binomial
// probability that a quorum is up.
//
// It is a scenario-level instrument, not a check: it reads the world's host
// and network state when a fault event changes it. The members are the
// voters of the newest configuration a member applied (etcdtrace.Membership),
// so that a membership change moves the quorum with it.
type QuorumTracker struct {
	w       *sim.World
	members []sim.HostID
	end     sim.Time
	since   sim.Time
	up      bool
	upTime  sim.Time
	dirty   bool   // a fault event was seen; its effect is in place by the next event
	conf    uint64 // the index of the newest configuration applied
}

// NewQuorumTracker measures over [0, end).
func NewQuorumTracker(w *sim.World, members []sim.HostID, end sim.Time) *QuorumTracker {
	return &QuorumTracker{w: w, members: members, end: end, dirty: true}
}

// Observe consumes one trace event. Only faults change the answer, and a
// fault's event is emitted as it is applied, so the state is read again at
// the next event, when the fault is in place; hosts booting at time 0 are
// handled the same way (the tracker starts dirty).
func (q *QuorumTracker) Observe(e *sim.Event) {
	// Nothing is read at time 0: hosts are still booting one by one.
	if q.dirty && e.At > 0 && (e.At > q.since || e.Kind != sim.KindFault) {
		q.up = q.quorumUp()
		q.dirty = false
	}
	q.advance(e.At)
	if e.Kind == sim.KindFault {
		q.dirty = true
	}
	if d, ok := e.Data.(*etcdtrace.Membership); ok && d.Change != etcdtrace.MemberRefused && d.Index > q.conf {
		q.conf, q.dirty = d.Index, true
		q.members = q.members[:0:0]
		for _, name := range etcdtrace.Names(d.Voters) {
			if h, ok := q.w.HostByName(name); ok {
				q.members = append(q.members, h.ID())
			}
		}
	}
}

// advance credits the time since the last change, up to now.
func (q *QuorumTracker) advance(now sim.Time) {
	now = min(now, q.end)
	if now > q.since {
		if q.up {
			q.upTime += now - q.since
		}
		q.since = now
	}
}

// Fraction closes the window at the world's current time and returns the
// fraction.
func (q *QuorumTracker) Fraction() float64 {
	if q.dirty {
		q.up, q.dirty = q.quorumUp(), false
	}
	q.advance(q.w.Now())
	span := min(q.w.Now(), q.end)
	if span <= 0 {
		return 0
	}
	return float64(q.upTime) / float64(span)
}

// quorumUp searches the subsets of serving members for a quorum that is
// connected both ways; clusters have at most 7 members.
func (q *QuorumTracker) quorumUp() bool {
	var serving []sim.HostID
	for _, id := range q.members {
		if h := q.w.Host(id); h.Up() && !h.Paused() {
			serving = append(serving, id)
		}
	}
	need := len(q.members)/2 + 1
	if len(serving) < need {
		return false
	}
	net := q.w.Network()
	n := len(serving)
	for mask := 0; mask < 1<<n; mask++ {
		if popcount(mask) != need {
			continue
		}
		ok := true
		for i := 0; i < n && ok; i++ {
			for j := 0; j < n && ok; j++ {
				if i != j && mask&(1<<i) != 0 && mask&(1<<j) != 0 && !net.Connected(serving[i], serving[j]) {
					ok = false
				}
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}
