package nemesis

import (
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// LeaderTracker follows RaftState events to know which member leads now,
// so that a fault schedule can target "etcd-leader" when the fault fires.
type LeaderTracker struct {
	w       *sim.World
	members []string
	latest  []etcdtrace.RaftState
}

// NewLeaderTracker tracks the named members of w.
func NewLeaderTracker(w *sim.World, members []string) *LeaderTracker {
	return &LeaderTracker{w: w, members: members, latest: make([]etcdtrace.RaftState, len(members))}
}

// Observe consumes one trace event.
func (t *LeaderTracker) Observe(e *sim.Event) {
	if d, ok := e.Data.(*etcdtrace.RaftState); ok {
		for i, name := range t.members {
			if name == d.Member {
				t.latest[i] = *d
			}
		}
	}
}

// State returns the latest RaftState the named member reported (its term,
// role, leader and commit index), or the zero value if it reported none.
// A crashed member's last report stays until it boots again.
func (t *LeaderTracker) State(member string) etcdtrace.RaftState {
	for i, name := range t.members {
		if name == member {
			return t.latest[i]
		}
	}
	return etcdtrace.RaftState{}
}

// Leader returns the live member that leads in the highest term, if any.
func (t *LeaderTracker) Leader() (string, bool) {
	best, bestTerm := -1, uint64(0)
	for i, s := range t.latest {
		h, ok := t.w.HostByName(t.members[i])
		if !ok || !h.Up() || s.Role != "leader" {
			continue
		}
		if best < 0 || s.Term > bestTerm {
			best, bestTerm = i, s.Term
		}
	}
	if best < 0 {
		return "", false
	}
	return t.members[best], true
}

// Resolve implements sim.Resolver for "etcd-leader" (the current leader, or
// nobody) and "etcd-follower" (the first live member that is not leader).
func (t *LeaderTracker) Resolve(name string) ([]sim.HostID, bool) {
	switch name {
	case "etcd-leader":
		leader, ok := t.Leader()
		if !ok {
			return nil, true
		}
		h, _ := t.w.HostByName(leader)
		return []sim.HostID{h.ID()}, true
	case "etcd-follower":
		leader, _ := t.Leader()
		for _, m := range t.members {
			if h, _ := t.w.HostByName(m); h != nil && h.Up() && m != leader {
				return []sim.HostID{h.ID()}, true
			}
		}
		return nil, true
	}
	return nil, false
}
