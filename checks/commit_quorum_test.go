package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// per is a Persist of runs, each {from, to, term}.
func per(member string, runs ...[3]uint64) *etcdtrace.Persist {
	p := &etcdtrace.Persist{Member: member}
	for _, r := range runs {
		p.Runs = append(p.Runs, etcdtrace.TermRun{From: r[0], To: r[1], Term: r[2]})
	}
	return p
}

// perBoot is the Persist of a boot that loaded a snapshot at (snap, term)
// and runs.
func perBoot(member string, snap, term uint64, runs ...[3]uint64) *etcdtrace.Persist {
	p := per(member, runs...)
	p.Boot, p.SnapIndex, p.SnapTerm = true, snap, term
	return p
}

func cqLead(member string, term, commit uint64) *etcdtrace.RaftState {
	return &etcdtrace.RaftState{Member: member, Incarnation: 1, Term: term, Role: "leader", Commit: commit}
}

// quorumStart: n1, n2, n3 boot empty; n1 leads term 1 and commits its
// empty entry 1, which n1 and n2 fsynced.
func quorumStart() []step {
	return []step{
		at(0, perBoot("n1", 0, 0)), at(0, perBoot("n2", 0, 0)), at(0, perBoot("n3", 0, 0)),
		at(10, cqLead("n1", 1, 0)),
		at(11, per("n1", [3]uint64{1, 1, 1})),
		at(12, per("n2", [3]uint64{1, 1, 1})),
		at(13, cqLead("n1", 1, 1)),
		at(14, ap("n1", 1, 1, 0x11)),
	}
}

func TestCommitQuorum(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []step
		want  string // "" for a pass
	}{
		{"majority durable", nil, ""},
		{"acknowledged before its fsync", []step{
			at(20, per("n1", [3]uint64{2, 2, 1})),
			at(21, cqLead("n1", 1, 2)), // n2's ack came before its fsync
			at(22, per("n2", [3]uint64{2, 2, 1})),
		}, "committed index 2, but only 1 of its voters [n1 n2 n3]"},
		{"a learner's copy does not count", []step{
			at(20, mem("n1", 2, etcdtrace.MemberAddLearner, "n4", "n1,n2,n3", "n4")),
			at(20, ap("n1", 2, 1, 0x12)),
			at(21, perBoot("n4", 2, 1)),
			at(22, per("n1", [3]uint64{3, 3, 1})),
			at(23, per("n4", [3]uint64{3, 3, 1})),
			at(24, cqLead("n1", 1, 3)),
		}, "committed index 3, but only 1 of its voters [n1 n2 n3] hold that entry of its term durably [n1]"},
		{"a promoted learner counts", []step{
			at(20, mem("n1", 2, etcdtrace.MemberAddLearner, "n4", "n1,n2,n3", "n4")),
			at(20, ap("n1", 2, 1, 0x12)),
			at(21, perBoot("n4", 2, 1)),
			at(22, mem("n1", 3, etcdtrace.MemberPromote, "n4", "n1,n2,n3,n4", "")),
			at(22, ap("n1", 3, 1, 0x13)),
			at(23, per("n1", [3]uint64{4, 4, 1})),
			at(23, per("n2", [3]uint64{4, 4, 1})),
			at(24, per("n4", [3]uint64{4, 4, 1})),
			at(25, cqLead("n1", 1, 4)),
		}, ""},
		{"a grown configuration needs a larger majority", []step{
			at(20, mem("n1", 2, etcdtrace.MemberAddVoter, "n4", "n1,n2,n3,n4", "")),
			at(20, ap("n1", 2, 1, 0x12)),
			at(22, per("n1", [3]uint64{3, 3, 1})),
			at(23, per("n2", [3]uint64{3, 3, 1})),
			at(24, cqLead("n1", 1, 3)),
		}, "only 2 of its voters [n1 n2 n3 n4] hold that entry of its term durably [n1 n2], not a majority (3)"},
		{"a change not yet applied is not in force", []step{
			at(20, mem("n2", 2, etcdtrace.MemberAddVoter, "n4", "n1,n2,n3,n4", "")), // n1 has not applied it
			at(22, per("n1", [3]uint64{3, 3, 1})),
			at(23, per("n2", [3]uint64{3, 3, 1})),
			at(24, cqLead("n1", 1, 3)),
		}, ""},
		{"an entry of an older term", []step{
			at(20, per("n1", [3]uint64{2, 2, 1})),
			at(21, per("n2", [3]uint64{2, 2, 1})),
			at(30, &etcdtrace.RaftState{Member: "n1", Incarnation: 1, Term: 2, Role: "leader", Commit: 1}),
			at(31, &etcdtrace.RaftState{Member: "n1", Incarnation: 1, Term: 2, Role: "leader", Commit: 2}),
		}, "leader n1 (term 2) committed index 2, but only 0 of its voters"},
		{"a truncated copy no longer counts", []step{
			at(20, per("n1", [3]uint64{2, 3, 1})),
			at(21, per("n2", [3]uint64{2, 3, 1})),
			at(22, per("n2", [3]uint64{3, 3, 2})), // a later leader's entry replaced it
			at(23, cqLead("n1", 1, 3)),
		}, "committed index 3, but only 1 of its voters"},
		{"a copy a boot did not load no longer counts", []step{
			at(20, per("n1", [3]uint64{2, 2, 1})),
			at(21, per("n2", [3]uint64{2, 2, 1})),
			at(22, perBoot("n2", 0, 0, [3]uint64{1, 1, 1})),
			at(23, cqLead("n1", 1, 2)),
		}, "committed index 2, but only 1 of its voters"},
		{"a torn write that a boot loaded counts", []step{
			at(20, per("n1", [3]uint64{2, 2, 1})),
			at(22, perBoot("n3", 0, 0, [3]uint64{1, 2, 1})),
			at(23, cqLead("n1", 1, 2)),
		}, ""},
		{"a snapshot covers the entry", []step{
			at(20, per("n1", [3]uint64{2, 6, 1})),
			at(21, &etcdtrace.Persist{Member: "n3", SnapIndex: 5, SnapTerm: 1, Runs: []etcdtrace.TermRun{{From: 6, To: 6, Term: 1}}}),
			at(22, cqLead("n1", 1, 6)),
		}, ""},
		{"a new leader's first report is not judged", []step{
			at(30, &etcdtrace.RaftState{Member: "n3", Incarnation: 1, Term: 2, Role: "leader", Commit: 9}),
		}, ""},
		{"a restored cluster's voters are its restored members", []step{
			at(50, &etcdtrace.Restore{Member: "r1", ClusterID: 7}),
			at(50, &etcdtrace.Restore{Member: "r2", ClusterID: 7}),
			at(50, &etcdtrace.Restore{Member: "r3", ClusterID: 7}),
			at(51, perBoot("r1", 3, 1)), at(51, perBoot("r2", 3, 1)), at(51, perBoot("r3", 3, 1)),
			at(52, cqLead("r1", 2, 3)),
			at(53, per("r1", [3]uint64{4, 4, 2})),
			at(54, cqLead("r1", 2, 4)),
		}, "leader r1 (term 2) committed index 4, but only 1 of its voters [r1 r2 r3]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewCommitQuorum([]string{"n3", "n1", "n2"}), append(quorumStart(), tc.steps...)...)
			require.Equal(t, "commit-quorum", r.Name)
			if tc.want == "" {
				require.True(t, r.OK, r.String())
				return
			}
			require.False(t, r.OK)
			require.Contains(t, r.Offenses[0].What, tc.want)
			require.NotZero(t, r.Offenses[0].Seq, "the offense names the commit's event")
		})
	}
}
