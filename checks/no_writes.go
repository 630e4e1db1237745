package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

// NoWritesWithoutQuorum checks that no KV write succeeds unless a quorum of
// etcd members could have logged it: Raft commits an entry only once a
// majority has it in its log, and a member logs an entry only while it
// runs, so between a write's invocation and its acknowledgement at least a
// quorum of members must each have been up (not crashed, not frozen) at
// some moment. They need not have been up together: a member that logged
// the entry and then crashed still counts, its log is durable. It runs in
// every etcd scenario. The members are known when the world is built; when
// they are down comes from the trace's fault events (a crash until its
// restart, a pause until its resume or a crash), so a scenario need not
// say when its quorum is gone.
type NoWritesWithoutQuorum struct {
	members map[sim.HostID]*memberDown
	quorum  int
	down    int
	// window counts the windows without a quorum; open says one is open.
	window int
	open   bool
	since  sim.Time
	// calls are the writes in flight that were invoked in a window: the
	// members seen up since each was invoked.
	calls   map[callRef]map[sim.HostID]bool
	rec     Recorder
	invoked int
}

// memberDown is what the trace said of one member.
type memberDown struct{ crashed, paused bool }

func (m *memberDown) isDown() bool { return m.crashed || m.paused }

type callRef struct {
	client string
	op     uint64
}

// NewNoWritesWithoutQuorum judges the etcd members members.
func NewNoWritesWithoutQuorum(members []sim.HostID) *NoWritesWithoutQuorum {
	c := &NoWritesWithoutQuorum{members: map[sim.HostID]*memberDown{}, quorum: len(members)/2 + 1, calls: map[callRef]map[sim.HostID]bool{}}
	for _, m := range members {
		c.members[m] = &memberDown{}
	}
	return c
}

// Name implements Check.
func (c *NoWritesWithoutQuorum) Name() string { return "no-writes-without-quorum" }

// Observe implements Check.
func (c *NoWritesWithoutQuorum) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		c.observeFault(e)
		return
	}
	switch d := e.Data.(type) {
	case *etcdtrace.Call:
		if d.Kind.Writes() && c.open {
			up := map[sim.HostID]bool{}
			// determinism: fills a set; the order does not matter
			for id, m := range c.members {
				if !m.isDown() {
					up[id] = true
				}
			}
			c.calls[callRef{d.Client, d.Op}] = up
			c.invoked++
		}
	case *etcdtrace.Return:
		up, ok := c.calls[callRef{d.Client, d.Op}]
		if !ok {
			return
		}
		delete(c.calls, callRef{d.Client, d.Op})
		if d.Outcome == etcdtrace.OutcomeOK && len(up) < c.quorum {
			c.rec.Add(e, "write %s/%d succeeded though only %d of %d members were up at any moment since it was invoked (a quorum is %d; %d down since %v)",
				d.Client, d.Op, len(up), len(c.members), c.quorum, c.down, c.since)
		}
	}
}

// observeFault follows which members are down.
func (c *NoWritesWithoutQuorum) observeFault(e *sim.Event) {
	m := c.members[e.Host]
	if m == nil {
		return
	}
	was := m.isDown()
	switch k := sim.FaultKind(e.Name); {
	case k.CrashesHost():
		m.crashed, m.paused = true, false
	case k == sim.FaultRestart:
		m.crashed = false
	case k == sim.FaultPause:
		m.paused = true
	case e.Name == "resume":
		m.paused = false
	}
	switch now := m.isDown(); {
	case now && !was:
		c.down++
	case was && !now:
		c.down--
		// determinism: marks every call alike
		for _, up := range c.calls {
			up[e.Host] = true
		}
	}
	switch up := len(c.members) - c.down; {
	case up < c.quorum && !c.open:
		c.open, c.since = true, e.At
		c.window++
	case up >= c.quorum && c.open:
		c.open = false
	}
}

// Finish implements Check.
func (c *NoWritesWithoutQuorum) Finish() Result {
	if c.window == 0 {
		return Result{Name: c.Name(), OK: true, Detail: "a quorum of members was up throughout"}
	}
	return c.rec.Result(c.Name(), fmt.Sprintf("0 of %d writes invoked in %d window(s) without a quorum succeeded before a quorum could log them", c.invoked, c.window))
}
