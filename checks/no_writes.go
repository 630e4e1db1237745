package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
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
// say when its quorum is gone. With FollowMembership, the members are the
// voters of the newest configuration a member applied (its
// etcdtrace.Membership events), so that a member added and promoted
// counts, and one removed (and then powered off) does not; and after a
// restore from a backup (etcdtrace.Restore), the members restored into
// the new cluster, wherever they run.
type NoWritesWithoutQuorum struct {
	// faults say which hosts are down; voters are the members now.
	faults FaultWindows
	voters map[sim.HostID]bool
	hostID func(string) (sim.HostID, bool)
	conf   uint64 // the index of the newest configuration applied
	// cluster is the cluster ID of the newest restore seen (0: none).
	cluster uint64
	quorum  int
	down    int
	// window counts the windows without a quorum; open says one is open.
	window int
	open   bool
	since  sim.Time
	// calls are the writes in flight that were invoked in a window: the
	// members seen up since each was invoked.
	calls   map[callID]map[sim.HostID]bool
	rec     Recorder
	invoked int
}

// NewNoWritesWithoutQuorum judges the etcd members members.
func NewNoWritesWithoutQuorum(members []sim.HostID) *NoWritesWithoutQuorum {
	c := &NoWritesWithoutQuorum{voters: map[sim.HostID]bool{}, calls: map[callID]map[sim.HostID]bool{}}
	for _, m := range members {
		c.voters[m] = true
	}
	c.quorum = len(members)/2 + 1
	return c
}

// FollowMembership makes the check follow membership changes: from each
// newer configuration a member applies, the members are its voters, whose
// hosts hostID finds by name. A nil hostID changes nothing.
func (c *NoWritesWithoutQuorum) FollowMembership(hostID func(name string) (sim.HostID, bool)) *NoWritesWithoutQuorum {
	c.hostID = hostID
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
	case *etcdtrace.Membership:
		c.observeMembership(e, d)
	case *etcdtrace.Restore:
		c.observeRestore(e, d)
	case *etcdtrace.Call:
		if d.Kind.Writes() && c.open {
			up := map[sim.HostID]bool{}
			// determinism: fills a set; the order does not matter
			for id := range c.voters {
				if !c.faults.Down(id) {
					up[id] = true
				}
			}
			c.calls[callID{d.Client, d.Op}] = up
			c.invoked++
		}
	case *etcdtrace.Return:
		up, ok := takeCall(c.calls, d.Client, d.Op)
		if !ok {
			return
		}
		if d.Outcome == etcdtrace.OutcomeOK && len(up) < c.quorum {
			c.rec.Add(e, "write %s/%d succeeded though only %d of %d members were up at any moment since it was invoked (a quorum is %d; %d down since %v)",
				d.Client, d.Op, len(up), len(c.voters), c.quorum, c.down, c.since)
		}
	}
}

// observeFault follows which hosts are down: a voter that comes up
// counts for the writes in flight at once.
func (c *NoWritesWithoutQuorum) observeFault(e *sim.Event) {
	was := c.faults.Down(e.Host)
	c.faults.Observe(e)
	if was && !c.faults.Down(e.Host) && c.voters[e.Host] {
		// determinism: marks every call alike
		for _, up := range c.calls {
			up[e.Host] = true
		}
	}
	c.update(e.At)
}

// observeMembership takes the voters of a newer configuration as the
// members: a voter that is up counts for the writes in flight at once.
func (c *NoWritesWithoutQuorum) observeMembership(e *sim.Event, d *etcdtrace.Membership) {
	if c.hostID == nil || d.Change == etcdtrace.MemberRefused || d.Index <= c.conf {
		return
	}
	c.conf = d.Index
	voters := map[sim.HostID]bool{}
	for _, name := range etcdtrace.Names(d.Voters) {
		id, ok := c.hostID(name)
		if !ok {
			continue
		}
		voters[id] = true
		if !c.voters[id] && !c.faults.Down(id) {
			// determinism: marks every call alike
			for _, up := range c.calls {
				up[id] = true
			}
		}
	}
	c.voters, c.quorum = voters, len(voters)/2+1
	c.update(e.At)
}

// observeRestore makes the members of a new cluster, restored from a
// backup (or bootstrapped empty), the members: the first restore into a
// cluster replaces the voters, each further one adds its host.
func (c *NoWritesWithoutQuorum) observeRestore(e *sim.Event, d *etcdtrace.Restore) {
	if c.hostID == nil {
		return
	}
	if d.ClusterID != c.cluster {
		c.cluster, c.conf, c.voters = d.ClusterID, 0, map[sim.HostID]bool{}
	}
	c.voters[e.Host] = true
	c.quorum = len(c.voters)/2 + 1
	c.update(e.At)
}

// update counts the members down and opens or closes a window without a
// quorum.
func (c *NoWritesWithoutQuorum) update(at sim.Time) {
	c.down = 0
	// determinism: counts; the order does not matter
	for id := range c.voters {
		if c.faults.Down(id) {
			c.down++
		}
	}
	switch up := len(c.voters) - c.down; {
	case up < c.quorum && !c.open:
		c.open, c.since = true, at
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
