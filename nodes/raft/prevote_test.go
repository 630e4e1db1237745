package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Thesis §9.6 (PreVote) with paper §5.2: a voter grants a pre-vote only if
// it could grant the real vote, or if the pre-vote is for a term beyond its
// own. A follower that already has a leader in term T refuses a pre-vote
// for that same term T (from a node still at T-1), answering with its term;
// a pre-vote for T+1 it grants (no lease here: CheckQuorum is off). Real
// source: go.etcd.io/raft raft.go, func (r *raft) Step, case MsgVote,
// MsgPreVote: canVote := r.Vote == m.From || (r.Vote == None && r.lead ==
// None) || (m.Type == MsgPreVote && m.Term > r.Term).
func TestPreVoteAtOwnTermNeedsVoteRules_9_6(t *testing.T) {
	for _, tc := range []struct {
		name       string
		lead, vote uint64 // the voter's state in term 2
		preVote    uint64 // the term the pre-vote asks about
		reject     bool
		respTerm   uint64
	}{
		{"led follower, same term", 1, 1, 2, true, 2},
		{"led follower that never voted, same term", 1, None, 2, true, 2},
		{"led follower, future term", 1, 1, 3, false, 3},
		{"no leader and no vote, same term", None, None, 2, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNode(t, 2, ids(3), PersistentState{HardState: HardState{Term: 2, Vote: tc.vote}},
				func(c *Config) { c.PreVote, c.CheckQuorum = true, false })
			if tc.lead != None {
				require.NoError(t, n.Step(Message{Type: MsgHeartbeat, From: tc.lead, To: 2, Term: 2}))
			}
			drain(n)
			require.Equal(t, tc.lead, n.lead)
			require.NoError(t, n.Step(Message{Type: MsgPreVote, From: 3, To: 2, Term: tc.preVote}))
			resps := msgsOfType(drain(n), MsgPreVoteResp)
			require.Len(t, resps, 1)
			assert.Equal(t, tc.reject, resps[0].Reject)
			assert.Equal(t, tc.respTerm, resps[0].Term)
			assert.Equal(t, uint64(2), n.term, "a pre-vote never changes the voter's term")
			assert.Equal(t, tc.lead, n.lead)
		})
	}
}

// Thesis §9.6 with paper §5.2 ("candidate ... loses the election"): a
// pre-candidate that a quorum refuses gives up at once and becomes a
// follower in its unchanged term, instead of waiting out its election
// timeout as a pre-candidate. Refusals come in the voter's own term, which
// equals the pre-candidate's when the cluster has moved on without it.
// Real source: go.etcd.io/raft raft.go, func stepCandidate, case
// myVoteRespType: r.poll(...) == quorum.VoteLost -> r.becomeFollower(r.Term,
// None).
func TestPreCandidateStepsDownOnQuorumOfRejections_9_6(t *testing.T) {
	for _, tc := range []struct {
		name     string
		size     int
		rejectAt []uint64 // the term of each refusal, from peers 2, 3, ...
		role     Role
	}{
		{"3 nodes, two same-term refusals", 3, []uint64{1, 1}, Follower},
		{"3 nodes, one refusal is no quorum", 3, []uint64{1}, PreCandidate},
		{"5 nodes, three same-term refusals", 5, []uint64{1, 1, 1}, Follower},
		{"5 nodes, two refusals are no quorum", 5, []uint64{1, 1}, PreCandidate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNode(t, 1, ids(tc.size), PersistentState{HardState: HardState{Term: 1}},
				func(c *Config) { c.PreVote = true })
			require.NoError(t, n.Step(Message{Type: MsgHup}))
			require.Equal(t, PreCandidate, n.role)
			require.Len(t, msgsOfType(drain(n), MsgPreVote), tc.size-1)
			for i, term := range tc.rejectAt {
				require.NoError(t, n.Step(Message{Type: MsgPreVoteResp, From: uint64(i + 2), To: 1, Term: term, Reject: true}))
			}
			assert.Equal(t, tc.role, n.role)
			assert.Equal(t, uint64(1), n.term, "a lost pre-vote never bumps the term")
			assert.Empty(t, msgsOfType(drain(n), MsgVote), "no real election after a lost poll")
		})
	}
}
