package checks

import (
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// MembershipSafety judges etcd's membership changes (Raft thesis chapter
// 4) from the etcdtrace.Membership events members emit when they apply a
// change, their etcdtrace.RaftState reports and the fault events:
//
//   - agreement: every member applies the same configuration at an index;
//   - single-server changes: each configuration differs from the one
//     before it (the change at the next lower index) by at most one
//     voter, so that any two successive majorities intersect (§4.1);
//   - no disjoint leaders: two members are never leaders in the same term
//     under configurations whose majorities can be disjoint (with
//     election safety, raft-safety's concern, this is two leaders at once);
//   - no amnesiac voter: a member whose disk was wiped never comes back
//     under its old ID while that ID is still a voter: it would vote and
//     acknowledge as if it still held the entries it acknowledged before
//     (§4.1's safety rests on voters keeping their logs). The operator
//     must remove it and add a new member, with a new ID, in its place.
//
// Configurations are sets of member names. The one before the first change
// is derived from the first change (its voters minus an added voter, plus a
// removed one).
type MembershipSafety struct {
	rec     Recorder
	env     Env
	configs map[uint64]*msConfig // by Raft index of the change
	indexes []uint64             // the keys of configs, sorted
	// current is each member's last applied configuration (index).
	current map[string]uint64
	leaders map[uint64]msLeader // by term
	// wiped: members whose disk was wiped, by name; cleared when a
	// removal of the member applies.
	wiped   map[string]bool
	ids     map[string]uint64 // member name -> Raft ID last reported
	changes int
}

type msConfig struct {
	voters   []string
	learners string
	change   string
	node     string
}

type msLeader struct {
	member string
	conf   uint64 // index of its configuration (0: the initial one)
}

// NewMembershipSafety returns the "membership-safety" check.
func NewMembershipSafety(env Env) *MembershipSafety {
	return &MembershipSafety{env: env, configs: map[uint64]*msConfig{}, current: map[string]uint64{},
		leaders: map[uint64]msLeader{}, wiped: map[string]bool{}, ids: map[string]uint64{}}
}

// Name implements Check.
func (c *MembershipSafety) Name() string { return "membership-safety" }

// Observe implements Check.
func (c *MembershipSafety) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		if f := sim.ParseFaultEvent(e.Name); f.Kind == sim.FaultWipe && !f.Ends && !f.Unresolved && c.env.HostName != nil {
			c.wiped[c.env.HostName(e.Host)] = true
		}
		return
	}
	switch d := e.NodeData().(type) {
	case *etcdtrace.Membership:
		c.observeChange(e, d)
	case *etcdtrace.RaftState:
		c.observeState(e, d)
	}
}

func (c *MembershipSafety) observeChange(e *sim.Event, d *etcdtrace.Membership) {
	if d.Change == etcdtrace.MemberRefused {
		return // the configuration stays as it was
	}
	c.changes++
	voters := etcdtrace.Names(d.Voters)
	slices.Sort(voters)
	conf := &msConfig{voters: voters, learners: d.Learners, change: d.Change, node: d.Node}
	if prev, ok := c.configs[d.Index]; ok {
		if !slices.Equal(prev.voters, conf.voters) || prev.learners != conf.learners {
			c.rec.Add(e, "agreement: member %s applied voters %v learners [%s] at index %d, another member applied voters %v learners [%s]",
				d.Member, conf.voters, conf.learners, d.Index, prev.voters, prev.learners)
		}
	} else {
		c.configs[d.Index] = conf
		k, _ := slices.BinarySearch(c.indexes, d.Index)
		c.indexes = slices.Insert(c.indexes, k, d.Index)
		c.checkSteps(e, k)
	}
	c.current[d.Member] = d.Index
	if d.Change == etcdtrace.MemberRemove {
		delete(c.wiped, d.Node)
	}
}

// checkSteps compares the configuration at indexes[k] with its neighbours.
func (c *MembershipSafety) checkSteps(e *sim.Event, k int) {
	for _, pair := range [][2]int{{k - 1, k}, {k, k + 1}} {
		if pair[0] < 0 || pair[1] >= len(c.indexes) {
			continue
		}
		pair := [2]uint64{c.indexes[pair[0]], c.indexes[pair[1]]}
		a, b := c.configs[pair[0]], c.configs[pair[1]]
		if n := voterDiff(a.voters, b.voters); n > 1 {
			c.rec.Add(e, "single-server change: the configuration at index %d (voters %v) differs from the one at index %d (voters %v) by %d voters",
				pair[1], b.voters, pair[0], a.voters, n)
		}
	}
}

// voterDiff is the size of the symmetric difference of two sorted sets.
func voterDiff(a, b []string) int {
	n := 0
	for _, x := range a {
		if !slices.Contains(b, x) {
			n++
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			n++
		}
	}
	return n
}

// votersAt returns the voters of configuration index (0: the initial
// configuration, derived from the first change), and whether known.
func (c *MembershipSafety) votersAt(index uint64) ([]string, bool) {
	if index != 0 {
		return c.configs[index].voters, true
	}
	if len(c.indexes) == 0 {
		return nil, false
	}
	f := c.configs[c.indexes[0]]
	out := slices.Clone(f.voters)
	switch f.change {
	case etcdtrace.MemberAddVoter, etcdtrace.MemberPromote:
		out = slices.DeleteFunc(out, func(s string) bool { return s == f.node })
	case etcdtrace.MemberRemove:
		out = append(out, f.node)
		slices.Sort(out)
	}
	return out, true
}

func (c *MembershipSafety) observeState(e *sim.Event, d *etcdtrace.RaftState) {
	if old, ok := c.ids[d.Member]; c.wiped[d.Member] && ok && old == d.ID {
		if voters, known := c.votersAt(c.latest()); !known || slices.Contains(voters, d.Member) {
			c.rec.Add(e, "amnesiac voter: member %s (ID %x) came back from a wiped disk under its old ID while a voter: it lost the entries it acknowledged",
				d.Member, d.ID)
			delete(c.wiped, d.Member) // one offense per wipe
		}
	}
	c.ids[d.Member] = d.ID
	if d.Role != "leader" {
		return
	}
	me := msLeader{member: d.Member, conf: c.current[d.Member]}
	prev, ok := c.leaders[d.Term]
	if !ok {
		c.leaders[d.Term] = me
		return
	}
	if prev.member == me.member {
		return
	}
	a, okA := c.votersAt(prev.conf)
	b, okB := c.votersAt(me.conf)
	if okA && okB && majoritiesCanBeDisjoint(a, b) {
		c.rec.Add(e, "disjoint leaders: %s (voters %v) and %s (voters %v) both lead term %d",
			prev.member, a, me.member, b, d.Term)
	}
}

// latest is the index of the newest configuration applied anywhere.
func (c *MembershipSafety) latest() uint64 {
	if len(c.indexes) == 0 {
		return 0
	}
	return c.indexes[len(c.indexes)-1]
}

// majoritiesCanBeDisjoint reports whether some majority of a and some
// majority of b share no member: the majorities pick the members the other
// set lacks first, and must then share fewer than the common members.
func majoritiesCanBeDisjoint(a, b []string) bool {
	common := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			common++
		}
	}
	qa, qb := len(a)/2+1, len(b)/2+1
	needA := max(0, qa-(len(a)-common))
	needB := max(0, qb-(len(b)-common))
	return needA+needB <= common
}

// Finish implements Check.
func (c *MembershipSafety) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d membership changes applied, %d configurations, each one voter from the last", c.changes, len(c.configs)))
}

var _ Check = (*MembershipSafety)(nil)
