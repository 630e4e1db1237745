package checks

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// CommitQuorum judges, at the moment a leader advances its commit index,
// the promise that commitment rests on: a majority of the voters of the
// configuration the leader has in force hold the entry durably. Whenever
// an etcdtrace.RaftState shows a leader's commit index move up to i within
// its term, at least a majority of those voters must have traced an
// etcdtrace.Persist that made the entry at i, in the leader's term,
// durable on their disk (and not lost it since: a later Persist that
// truncated it, or a boot that did not load it, takes it back). This is
// go.etcd.io/raft/v3's rule (raft.go, maybeCommit: quorum/majority.go
// CommittedIndex over the voters' Match in tracker/tracker.go, and
// raftLog.maybeCommit's term check) together with the Ready contract that
// an acknowledgement is sent only once its entries are saved
// (node.go, Ready: "Messages ... must be sent after Entries are
// persisted"), the leader's own log counting only once durable too.
//
//   - Learners never count (thesis §4.2.1; tracker.ProgressTracker
//     counts the voters' Match only).
//   - The configuration in force is the one the leader has applied: the
//     newest etcdtrace.Membership change at or below the index it last
//     applied (etcdtrace.Apply) or installed from a snapshot, else the
//     initial voters (the members the world was built with; for a cluster
//     restored from a backup, its restored members). kubesim makes
//     single-server changes only (nodes/raft, confchange.go), so a
//     configuration has one voter set; a joint one would need a majority
//     of each half.
//   - Only advances within one leader's term are judged: a member's first
//     report as leader is compared with nothing.
//
// Each Raft group (the cluster the world was built with, and each cluster
// restored from a backup, etcdtrace.Restore) keeps its own configurations.
type CommitQuorum struct {
	rec     Recorder
	members map[string]*cqMember
	groups  map[uint64]*cqGroup
	judged  int
}

// cqGroup is one Raft group's configurations.
type cqGroup struct {
	initial []string // sorted voters before the first change
	confs   []cqConf // by index, ascending
}

// cqConf is the configuration a membership change at index made.
type cqConf struct {
	index  uint64
	voters []string // sorted
}

// cqMember is what the check knows of one member: its durable log, the
// index its configuration is as of, and its last Raft state.
type cqMember struct {
	group               *cqGroup
	snapIndex, snapTerm uint64
	runs                []etcdtrace.TermRun // after snapIndex, in order
	applied             uint64
	booted              bool
	inc, term, commit   uint64
	leader              bool
}

// NewCommitQuorum returns the "commit-quorum" check; voters are the names
// of the members the world was built with, its initial voters.
func NewCommitQuorum(voters []string) *CommitQuorum {
	c := &CommitQuorum{members: map[string]*cqMember{}, groups: map[uint64]*cqGroup{}}
	g := c.group(0)
	g.initial = slices.Sorted(slices.Values(voters))
	return c
}

// Name implements Check.
func (c *CommitQuorum) Name() string { return "commit-quorum" }

func (c *CommitQuorum) group(cluster uint64) *cqGroup {
	return getOrNew(c.groups, cluster, func() *cqGroup { return &cqGroup{} })
}

func (c *CommitQuorum) member(name string) *cqMember {
	return getOrNew(c.members, name, func() *cqMember { return &cqMember{group: c.group(0)} })
}

// Observe implements Check.
func (c *CommitQuorum) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Persist:
		c.member(d.Member).persist(d)
	case *etcdtrace.Apply:
		c.member(d.Member).applied = d.Index
	case *etcdtrace.Membership:
		if d.Change != etcdtrace.MemberRefused {
			c.member(d.Member).group.add(d.Index, etcdtrace.Names(d.Voters))
		}
	case *etcdtrace.Restore:
		g := c.group(d.ClusterID)
		if !slices.Contains(g.initial, d.Member) {
			g.initial = append(g.initial, d.Member)
			slices.Sort(g.initial)
		}
		*c.member(d.Member) = cqMember{group: g}
	case *etcdtrace.RaftState:
		c.observeState(e, d)
	}
}

// persist records what a Persist made durable.
func (m *cqMember) persist(d *etcdtrace.Persist) {
	if d.Boot || d.SnapIndex > 0 {
		m.snapIndex, m.snapTerm, m.runs = d.SnapIndex, d.SnapTerm, m.runs[:0]
		m.applied = d.SnapIndex
	}
	for _, r := range d.Runs {
		m.truncate(r.From)
		if k := len(m.runs) - 1; k >= 0 && m.runs[k].Term == r.Term && m.runs[k].To+1 == r.From {
			m.runs[k].To = r.To
		} else {
			m.runs = append(m.runs, r)
		}
	}
}

// truncate drops the entries at index from and after.
func (m *cqMember) truncate(from uint64) {
	for len(m.runs) > 0 {
		k := len(m.runs) - 1
		switch r := &m.runs[k]; {
		case r.From >= from:
			m.runs = m.runs[:k]
		case r.To >= from:
			r.To = from - 1
			return
		default:
			return
		}
	}
}

// holds reports whether the member holds the entry at index i of term t
// durably. An entry its snapshot covers is held (a snapshot holds only
// committed entries).
func (m *cqMember) holds(i, t uint64) bool {
	switch {
	case i < m.snapIndex:
		return true
	case i == m.snapIndex:
		return m.snapTerm == t
	}
	for _, r := range m.runs {
		if r.From <= i && i <= r.To {
			return r.Term == t
		}
	}
	return false
}

// add records the configuration a change at index made.
func (g *cqGroup) add(index uint64, voters []string) {
	k, found := slices.BinarySearchFunc(g.confs, index, func(c cqConf, i uint64) int {
		return cmp.Compare(c.index, i)
	})
	if found {
		return // every member applies the same change there (membership-safety)
	}
	g.confs = slices.Insert(g.confs, k, cqConf{index: index, voters: slices.Sorted(slices.Values(voters))})
}

// votersAt returns the voters of the configuration in force once index is
// applied.
func (g *cqGroup) votersAt(index uint64) []string {
	k, found := slices.BinarySearchFunc(g.confs, index, func(c cqConf, i uint64) int {
		return cmp.Compare(c.index, i)
	})
	if found {
		return g.confs[k].voters
	}
	if k == 0 {
		return g.initial
	}
	return g.confs[k-1].voters
}

func (c *CommitQuorum) observeState(e *sim.Event, d *etcdtrace.RaftState) {
	m := c.member(d.Member)
	within := m.booted && m.inc == d.Incarnation && m.leader && m.term == d.Term
	if d.Role == "leader" && within && d.Commit > m.commit {
		c.judge(e, m, d)
	}
	m.booted, m.inc, m.term, m.commit, m.leader = true, d.Incarnation, d.Term, d.Commit, d.Role == "leader"
}

// judge checks that a majority of the leader's voters hold the entry it
// committed.
func (c *CommitQuorum) judge(e *sim.Event, leader *cqMember, d *etcdtrace.RaftState) {
	c.judged++
	voters := leader.group.votersAt(leader.applied)
	var holders []string
	for _, v := range voters {
		if m := c.members[v]; m != nil && m.group == leader.group && m.holds(d.Commit, d.Term) {
			holders = append(holders, v)
		}
	}
	if need := len(voters)/2 + 1; len(holders) < need {
		c.rec.Add(e, "leader %s (term %d) committed index %d, but only %d of its voters %v hold that entry of its term durably %v, not a majority (%d)",
			d.Member, d.Term, d.Commit, len(holders), voters, holders, need)
	}
}

// Finish implements Check.
func (c *CommitQuorum) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d commit advances, each on a majority of the voters holding the entry durably", c.judged))
}

var _ Check = (*CommitQuorum)(nil)
