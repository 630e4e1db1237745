package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// RaftSafety checks the safety properties of Raft (Ongaro and Ousterhout,
// "In Search of an Understandable Consensus Algorithm", 2014, figure 3) from
// the etcdtrace.RaftState and etcdtrace.Apply events that members emit:
//
//   - election safety: at most one member is leader in any term (§5.2);
//   - commit monotonicity: within one incarnation of a member, its commit
//     index never decreases (a committed entry stays committed; etcd's raft
//     persists the commit index in its HardState);
//   - state machine safety: if a member applies an entry at an index, no
//     member ever applies a different entry at that index (§5.4.3); entries
//     are told apart by (Term, EntryHash);
//   - committed prefix agreement: two RaftState reports with the same commit
//     index carry the same LogHash, so a committed entry is never lost or
//     replaced (log matching §5.3 together with leader completeness §5.4);
//   - apply order: within one incarnation a member applies strictly
//     increasing indexes; after a restart it may start again lower.
//
// Each Raft group is judged on its own: a member whose data directory
// was restored into a new cluster (etcdtrace.Restore, `etcdutl snapshot
// restore`) belongs, from then on, to the group of that cluster ID, whose
// terms and indexes start afresh.
//
// Memory grows with the log: one small slot per Raft index, in a slice.
type RaftSafety struct {
	rec     Recorder
	members map[string]*raftMember
	// groups are the Raft groups by cluster ID: 0 for the cluster the
	// world was built with, a restored cluster's ID for each restore.
	groups  map[uint64]*raftGroup
	applied uint64 // distinct indexes applied by some member
	applies uint64 // Apply events
	states  uint64 // RaftState events
}

// raftGroup is what the check knows of one Raft group (one cluster).
type raftGroup struct {
	// leaders maps a term to the first member seen as its leader.
	leaders map[uint64]string
	// slots is indexed by Raft index.
	slots []raftSlot
}

// raftMember is what the check remembers of one member.
type raftMember struct {
	group       *raftGroup // the group it belongs to now
	incarnation uint64
	booted      bool   // a RaftState was seen
	commit      uint64 // last commit index in this incarnation
	// applyInc is the incarnation lastApplied belongs to.
	applyInc    uint64
	lastApplied uint64
	hasApplied  bool
}

// raftSlot is what the check knows of one Raft index: the first applied
// entry (term 0: none yet) and the first log hash reported with this index
// as the commit index.
type raftSlot struct {
	term      uint64
	entryHash uint64
	logHash   uint64
	hasLog    bool
}

// NewRaftSafety returns the "raft-safety" check.
func NewRaftSafety() *RaftSafety {
	return &RaftSafety{members: map[string]*raftMember{}, groups: map[uint64]*raftGroup{}}
}

// Name implements Check.
func (c *RaftSafety) Name() string { return "raft-safety" }

func (c *RaftSafety) member(name string) *raftMember {
	return getOrNew(c.members, name, func() *raftMember { return &raftMember{group: c.group(0)} })
}

// group returns the group of a cluster ID, creating it.
func (c *RaftSafety) group(cluster uint64) *raftGroup {
	return getOrNew(c.groups, cluster, func() *raftGroup { return &raftGroup{leaders: map[uint64]string{}} })
}

// slot returns the slot of index i, growing the table as needed.
func (g *raftGroup) slot(i uint64) *raftSlot {
	if i >= uint64(len(g.slots)) {
		n := max(2*uint64(len(g.slots)), i+1, 64)
		grown := make([]raftSlot, n)
		copy(grown, g.slots)
		g.slots = grown
	}
	return &g.slots[i]
}

// Observe implements Check.
func (c *RaftSafety) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.RaftState:
		c.observeState(e, d)
	case *etcdtrace.Apply:
		c.observeApply(e, d)
	case *etcdtrace.Restore:
		c.member(d.Member).group = c.group(d.ClusterID)
	}
}

func (c *RaftSafety) observeState(e *sim.Event, d *etcdtrace.RaftState) {
	c.states++
	m := c.member(d.Member)
	switch {
	case !m.booted || d.Incarnation > m.incarnation:
		m.booted, m.incarnation, m.commit = true, d.Incarnation, d.Commit
	case d.Incarnation < m.incarnation:
		c.rec.Add(e, "incarnation: member %s reported incarnation %d after %d", d.Member, d.Incarnation, m.incarnation)
	case d.Commit < m.commit:
		c.rec.Add(e, "commit monotonicity: member %s (incarnation %d) commit index went back from %d to %d",
			d.Member, d.Incarnation, m.commit, d.Commit)
	default:
		m.commit = d.Commit
	}
	if d.Role == "leader" {
		if prev, ok := m.group.leaders[d.Term]; !ok {
			m.group.leaders[d.Term] = d.Member
		} else if prev != d.Member {
			c.rec.Add(e, "election safety: two leaders in term %d: %s and %s", d.Term, prev, d.Member)
		}
	}
	s := m.group.slot(d.Commit)
	if !s.hasLog {
		s.logHash, s.hasLog = d.LogHash, true
	} else if s.logHash != d.LogHash {
		c.rec.Add(e, "committed prefix agreement: member %s has log hash %x at commit index %d, another member had %x",
			d.Member, d.LogHash, d.Commit, s.logHash)
	}
}

func (c *RaftSafety) observeApply(e *sim.Event, d *etcdtrace.Apply) {
	c.applies++
	m := c.member(d.Member)
	if m.hasApplied && m.applyInc == m.incarnation && d.Index <= m.lastApplied {
		c.rec.Add(e, "apply order: member %s (incarnation %d) applied index %d after index %d",
			d.Member, m.incarnation, d.Index, m.lastApplied)
	}
	m.hasApplied, m.applyInc, m.lastApplied = true, m.incarnation, d.Index
	s := m.group.slot(d.Index)
	switch {
	case s.term == 0:
		s.term, s.entryHash = d.Term, d.EntryHash
		c.applied++
		if d.Term == 0 {
			c.rec.Add(e, "state machine safety: member %s applied index %d with term 0", d.Member, d.Index)
		}
	case s.term != d.Term || s.entryHash != d.EntryHash:
		c.rec.Add(e, "state machine safety: member %s applied entry (term %d, hash %x) at index %d, another member applied (term %d, hash %x)",
			d.Member, d.Term, d.EntryHash, d.Index, s.term, s.entryHash)
	}
}

// Finish implements Check.
func (c *RaftSafety) Finish() Result {
	ok := fmt.Sprintf("%d terms with a leader, %d members, %d entries applied identically (%d applies, %d state reports)",
		c.terms(), len(c.members), c.applied, c.applies, c.states)
	return c.rec.Result(c.Name(), ok)
}

// terms counts the terms that had a leader, over every group.
func (c *RaftSafety) terms() int {
	n := 0
	for _, id := range sim.SortedKeys(c.groups) {
		n += len(c.groups[id].leaders)
	}
	return n
}

var _ Check = (*RaftSafety)(nil)
