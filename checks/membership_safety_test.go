package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

func mem(member string, index uint64, change, node, voters, learners string) *etcdtrace.Membership {
	return &etcdtrace.Membership{Member: member, Index: index, Change: change, Node: node, Voters: voters, Learners: learners}
}

func rsID(member string, id, inc, term uint64, role string) *etcdtrace.RaftState {
	return &etcdtrace.RaftState{Member: member, ID: id, Incarnation: inc, Term: term, Role: role}
}

// replaceTrace is the operator's correct replacement of n2: removed, then n4
// added as a learner and promoted.
func replaceTrace() []step {
	var s []step
	for _, m := range []string{"n1", "n3"} {
		s = append(s,
			at(10, mem(m, 5, etcdtrace.MemberRemove, "n2", "n1,n3", "")),
			at(20, mem(m, 8, etcdtrace.MemberAddLearner, "n4", "n1,n3", "n4")),
			at(30, mem(m, 12, etcdtrace.MemberPromote, "n4", "n1,n3,n4", "")))
	}
	return append(s, at(30, mem("n4", 12, etcdtrace.MemberPromote, "n4", "n1,n3,n4", "")))
}

func msEnv() Env {
	return Env{HostName: func(id sim.HostID) string { return []string{"n1", "n2", "n3", "n4"}[id] }}
}

func TestMembershipSafetyValid(t *testing.T) {
	steps := append([]step{at(0, rsID("n1", 1, 1, 1, "leader"))}, replaceTrace()...)
	steps = append(steps, at(40, rsID("n1", 1, 1, 1, "leader")), at(50, rsID("n3", 3, 1, 2, "leader")))
	r := feed(NewMembershipSafety(msEnv()), steps...)
	require.True(t, r.OK, r.String())
}

func TestMembershipSafetyNegative(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
		want  string
	}{
		{"two voters at once", []step{
			at(10, mem("n1", 5, etcdtrace.MemberAddVoter, "n4", "n1,n2,n3,n4", "")),
			at(20, mem("n1", 6, etcdtrace.MemberRemove, "n2", "n1,n3", "")), // n2 and n4 in one step
		}, "single-server change"},
		{"out of order arrival still judged", []step{
			at(10, mem("n1", 9, etcdtrace.MemberRemove, "n2", "n1,n3", "")),
			at(20, mem("n3", 4, etcdtrace.MemberAddVoter, "n4", "n1,n2,n3,n4", "")),
		}, "single-server change"},
		{"disagreement at an index", []step{
			at(10, mem("n1", 5, etcdtrace.MemberRemove, "n2", "n1,n3", "")),
			at(20, mem("n3", 5, etcdtrace.MemberRemove, "n1", "n2,n3", "")),
		}, "agreement"},
		{"leaders of one term under disjoint majorities", []step{
			// The initial configuration is {n1,n2,n3}, derived from the
			// first change; n1 applied two removals, n2 none.
			at(10, mem("n1", 5, etcdtrace.MemberRemove, "n3", "n1,n2", "")),
			at(11, mem("n1", 6, etcdtrace.MemberRemove, "n2", "n1", "")),
			at(20, rsID("n1", 1, 1, 4, "leader")),
			at(21, rsID("n2", 2, 1, 4, "leader")),
		}, "disjoint leaders"},
		{"a wiped voter back under its old ID", []step{
			at(0, rsID("n2", 2, 1, 3, "follower")),
			at(10, mem("n1", 5, etcdtrace.MemberAddLearner, "n4", "n1,n2,n3", "n4")),
			{-1, nil}, // the wipe of n2 (host 1)
			at(30, rsID("n2", 2, 2, 0, "follower")),
		}, "amnesiac voter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewMembershipSafety(msEnv())
			for i, s := range tc.steps {
				if s.data == nil {
					c.Observe(&sim.Event{Seq: uint64(i), Kind: sim.KindFault, Host: 1, Name: string(sim.FaultWipe)})
					continue
				}
				c.Observe(&sim.Event{Seq: uint64(i), At: sim.Time(s.ms * 1e6), Kind: sim.KindNode, Data: s.data})
			}
			r := c.Finish()
			require.False(t, r.OK, "the check must fail")
			assert.Contains(t, r.Detail, tc.want)
		})
	}
}

// TestMembershipSafetyWipedThenRemoved: a wiped member that was removed
// before it came back (under its old ID, say by mistake of its host's
// restart) is no voter: no offense; nor are the same two leaders of one
// term under intersecting configurations this check's concern.
func TestMembershipSafetyWipedThenRemoved(t *testing.T) {
	c := NewMembershipSafety(msEnv())
	c.Observe(&sim.Event{Kind: sim.KindNode, Data: rsID("n2", 2, 1, 3, "follower")})
	c.Observe(&sim.Event{Kind: sim.KindFault, Host: 1, Name: string(sim.FaultWipe)})
	c.Observe(&sim.Event{Kind: sim.KindNode, Data: mem("n1", 5, etcdtrace.MemberRemove, "n2", "n1,n3", "")})
	c.Observe(&sim.Event{Kind: sim.KindNode, Data: rsID("n2", 2, 2, 0, "follower")})
	assert.True(t, c.Finish().OK)
	assert.False(t, majoritiesCanBeDisjoint([]string{"a", "b", "c"}, []string{"a", "b", "c", "d"}))
	assert.True(t, majoritiesCanBeDisjoint([]string{"a", "b", "c"}, []string{"a"}))
	assert.True(t, majoritiesCanBeDisjoint([]string{"a", "b", "c"}, []string{"a", "b", "c", "d", "e"}))
}
