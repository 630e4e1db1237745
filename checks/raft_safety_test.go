package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

func rs(member string, inc, term uint64, role string, commit, logHash uint64) *etcdtrace.RaftState {
	return &etcdtrace.RaftState{Member: member, Incarnation: inc, Term: term, Role: role, Commit: commit, LogHash: logHash}
}

func ap(member string, index, term, hash uint64) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: member, Index: index, Term: term, EntryHash: hash, Rev: int64(index) + 1}
}

// validRaftTrace: n1 leads term 1 and commits 1..2; n1 crashes, n2 leads
// term 2 and commits 3; n1 restarts (incarnation 2) and applies again from
// index 1.
func validRaftTrace() []step {
	return []step{
		at(0, rs("n1", 1, 0, "follower", 0, 0)),
		at(0, rs("n2", 1, 0, "follower", 0, 0)),
		at(0, rs("n3", 1, 0, "follower", 0, 0)),
		at(10, rs("n1", 1, 1, "leader", 0, 0)),
		at(11, rs("n2", 1, 1, "follower", 0, 0)),
		at(20, rs("n1", 1, 1, "leader", 1, 0xa1)),
		at(20, ap("n1", 1, 1, 0x11)),
		at(21, rs("n1", 1, 1, "leader", 2, 0xa2)),
		at(21, ap("n1", 2, 1, 0x12)),
		at(22, rs("n2", 1, 1, "follower", 2, 0xa2)),
		at(22, ap("n2", 1, 1, 0x11)),
		at(22, ap("n2", 2, 1, 0x12)),
		at(30, rs("n2", 1, 2, "leader", 2, 0xa2)),
		at(31, rs("n2", 1, 2, "leader", 3, 0xa3)),
		at(31, ap("n2", 3, 2, 0x13)),
		at(40, rs("n1", 2, 1, "follower", 0, 0)), // restart: commit begins lower
		at(41, rs("n1", 2, 2, "follower", 3, 0xa3)),
		at(41, ap("n1", 1, 1, 0x11)),
		at(41, ap("n1", 2, 1, 0x12)),
		at(41, ap("n1", 3, 2, 0x13)),
		at(42, rs("n3", 1, 2, "follower", 3, 0xa3)),
		at(42, ap("n3", 3, 2, 0x13)), // after a snapshot: starts at index 3
	}
}

func TestRaftSafetyValid(t *testing.T) {
	r := feed(NewRaftSafety(), validRaftTrace()...)
	require.True(t, r.OK, r.String())
	require.Equal(t, "raft-safety", r.Name)
	require.Contains(t, r.Detail, "2 terms with a leader, 3 members, 3 entries applied identically")
}

func TestRaftSafetyViolations(t *testing.T) {
	cases := []struct {
		name  string
		extra []step
		want  string
	}{
		{"two leaders in one term", []step{at(50, rs("n3", 1, 2, "leader", 3, 0xa3))}, "election safety: two leaders in term 2: n2 and n3"},
		{"commit goes back", []step{at(50, rs("n2", 1, 2, "leader", 2, 0xa2))}, "commit monotonicity: member n2 (incarnation 1) commit index went back from 3 to 2"},
		{"different entry at an index", []step{at(50, ap("n3", 4, 2, 0x14)), at(51, ap("n2", 4, 3, 0x99))}, "state machine safety: member n2 applied entry (term 3, hash 99) at index 4"},
		{"same index, other data", []step{at(50, ap("n3", 4, 2, 0x14)), at(51, ap("n2", 4, 2, 0x98))}, "state machine safety"},
		{"committed entry replaced", []step{at(50, rs("n3", 1, 2, "follower", 3, 0xbad))}, "committed prefix agreement: member n3 has log hash bad at commit index 3"},
		{"apply repeats an index", []step{at(50, ap("n2", 3, 2, 0x13))}, "apply order: member n2 (incarnation 1) applied index 3 after index 3"},
		{"apply goes back", []step{at(50, ap("n2", 2, 1, 0x12))}, "apply order: member n2 (incarnation 1) applied index 2 after index 3"},
		{"incarnation goes back", []step{at(50, rs("n1", 1, 2, "follower", 3, 0xa3))}, "incarnation: member n1 reported incarnation 1 after 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewRaftSafety(), append(validRaftTrace(), tc.extra...)...)
			require.False(t, r.OK)
			require.Contains(t, r.Detail, tc.want)
			require.NotEmpty(t, r.Offenses)
			require.Equal(t, uint64(len(validRaftTrace())+len(tc.extra)-1), r.Offenses[0].Seq)
		})
	}
}

// TestRaftSafetyRestoredGroup: members restored into a new cluster
// (etcdtrace.Restore) form a Raft group of their own, whose terms and
// indexes start again: its leader of term 2 and its entry at index 3 are
// not the old group's. Within the new group the properties still hold:
// two leaders of one term, or two entries at one index, are offenses.
func TestRaftSafetyRestoredGroup(t *testing.T) {
	restore := func(member string) *etcdtrace.Restore {
		return &etcdtrace.Restore{Member: member, ClusterID: 0xc1}
	}
	restored := append(validRaftTrace(),
		at(50, restore("n1")), at(50, restore("n2")), at(50, restore("n3")),
		at(60, rs("n3", 2, 2, "leader", 3, 0xb3)),
		at(61, ap("n3", 3, 2, 0x99)),
		at(62, rs("n1", 3, 2, "follower", 3, 0xb3)),
		at(62, ap("n1", 3, 2, 0x99)),
	)
	r := feed(NewRaftSafety(), restored...)
	require.True(t, r.OK, r.String())
	require.Contains(t, r.Detail, "3 terms with a leader")

	cases := []struct {
		name  string
		extra []step
		want  string
	}{
		{"two leaders in the new group", []step{at(70, rs("n1", 3, 2, "leader", 3, 0xb3))}, "election safety: two leaders in term 2"},
		{"two entries at one index", []step{at(70, rs("n2", 2, 2, "follower", 0, 0)), at(71, ap("n2", 3, 2, 0x98))}, "state machine safety"},
		{"not restored: still the old group", []step{at(70, rs("n4", 1, 2, "leader", 3, 0xa3))}, "election safety: two leaders in term 2: n2 and n4"},
	}
	for _, tc := range cases {
		r := feed(NewRaftSafety(), append(append([]step(nil), restored...), tc.extra...)...)
		require.False(t, r.OK, tc.name)
		require.Contains(t, r.Detail, tc.want, tc.name)
	}
}
