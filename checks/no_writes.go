package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

// NoWritesWithoutQuorum checks that no KV write succeeds while a quorum of
// etcd members is down: Raft commits an entry only once a majority has
// logged it, so a write invoked while most members are crashed or frozen
// cannot be acknowledged before enough of them are back. It runs in every
// etcd scenario. The members are known when the world is built; when they
// are down comes from the trace's fault events (a crash until its restart,
// a pause until its resume or a crash), so a scenario need not say when
// its quorum is gone.
type NoWritesWithoutQuorum struct {
	members map[sim.HostID]*memberDown
	quorum  int
	down    int
	// window counts the windows without a quorum; open says one is open.
	window  int
	open    bool
	since   sim.Time
	calls   map[callRef]int // writes invoked in a window, by window
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
	c := &NoWritesWithoutQuorum{members: map[sim.HostID]*memberDown{}, quorum: len(members)/2 + 1, calls: map[callRef]int{}}
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
			c.calls[callRef{d.Client, d.Op}] = c.window
			c.invoked++
		}
	case *etcdtrace.Return:
		w, ok := c.calls[callRef{d.Client, d.Op}]
		if !ok {
			return
		}
		delete(c.calls, callRef{d.Client, d.Op})
		if d.Outcome == etcdtrace.OutcomeOK && c.open && w == c.window {
			c.rec.Add(e, "write %s/%d succeeded while a quorum of members was down (%d of %d down since %v, when it was invoked too)",
				d.Client, d.Op, c.down, len(c.members), c.since)
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
	return c.rec.Result(c.Name(), fmt.Sprintf("0 of %d writes invoked in %d window(s) without a quorum succeeded", c.invoked, c.window))
}
