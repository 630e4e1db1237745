package raft

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// §5.2: a follower that hears nothing for an election timeout increments its
// term, votes for itself and asks every peer for a vote (with PreVote it
// first polls in term+1 without changing its own term, thesis §9.6).
func TestFollowerStartsElectionOnTimeout_5_2(t *testing.T) {
	for _, tc := range []struct {
		preVote  bool
		role     Role
		term     uint64
		msgType  MessageType
		msgTerm  uint64
		selfVote uint64
	}{
		{false, Candidate, 1, MsgVote, 1, 1},
		{true, PreCandidate, 0, MsgPreVote, 1, None},
	} {
		n := newTestNode(t, 1, ids(3), PersistentState{}, func(c *Config) { c.PreVote = tc.preVote })
		for i := 0; i < 9; i++ {
			n.Tick()
		}
		require.Equal(t, Follower, n.role, "no election before ElectionTick")
		n.Tick()
		assert.Equal(t, tc.role, n.role)
		assert.Equal(t, tc.term, n.term)
		assert.Equal(t, tc.selfVote, n.vote)
		ms := drain(n)
		require.Len(t, ms, 2)
		for i, m := range ms {
			assert.Equal(t, Message{Type: tc.msgType, From: 1, To: uint64(i + 2), Term: tc.msgTerm}, m)
		}
	}
}

// §5.2: election timeouts are drawn uniformly from [T, 2T) so that split
// votes are rare; every value of the range occurs.
func TestElectionTimeoutRandomized_5_2(t *testing.T) {
	n := newTestNode(t, 1, ids(3), PersistentState{}, func(c *Config) { c.Rand = rand.New(rand.NewPCG(1, 2)) })
	seen := map[int]bool{}
	for i := 0; i < 1000; i++ {
		n.becomeFollower(n.term+1, None)
		to := n.randomizedElectionTimeout
		require.GreaterOrEqual(t, to, 10)
		require.Less(t, to, 20)
		seen[to] = true
	}
	assert.Len(t, seen, 10)
}

// §5.2: a candidate wins with votes from a majority, returns to follower
// once a majority rejected it, and otherwise keeps waiting.
func TestCandidateElectionOutcome_5_2(t *testing.T) {
	for _, tc := range []struct {
		size  int
		votes map[uint64]bool
		want  Role
	}{
		{1, nil, Leader},
		{3, map[uint64]bool{2: true}, Leader},
		{3, map[uint64]bool{2: false, 3: false}, Follower},
		{3, map[uint64]bool{2: false}, Candidate},
		{5, map[uint64]bool{2: true}, Candidate},
		{5, map[uint64]bool{2: true, 3: true}, Leader},
		{5, map[uint64]bool{2: false, 3: false, 4: false}, Follower},
		{5, map[uint64]bool{2: true, 3: false, 4: false}, Candidate},
	} {
		n := newTestNode(t, 1, ids(tc.size), PersistentState{}, noPreVote)
		require.NoError(t, n.Step(Message{Type: MsgHup}))
		for id := uint64(2); id <= uint64(tc.size); id++ {
			granted, ok := tc.votes[id]
			if ok {
				require.NoError(t, n.Step(Message{Type: MsgVoteResp, From: id, To: 1, Term: 1, Reject: !granted}))
			}
		}
		assert.Equal(t, tc.want, n.role, "size %d votes %v", tc.size, tc.votes)
		assert.Equal(t, uint64(1), n.term)
	}
}

// §5.2: each server votes for at most one candidate in a term, first come
// first served (a repeated request from the same candidate is granted again).
func TestVoterGrantsAtMostOncePerTerm_5_2(t *testing.T) {
	n := newTestNode(t, 1, ids(3), PersistentState{}, noPreVote)
	for _, tc := range []struct {
		from   uint64
		reject bool
	}{{2, false}, {3, true}, {2, false}} {
		require.NoError(t, n.Step(Message{Type: MsgVote, From: tc.from, To: 1, Term: 1}))
		ms := drain(n)
		require.Len(t, ms, 1)
		assert.Equal(t, MsgVoteResp, ms[0].Type)
		assert.Equal(t, tc.reject, ms[0].Reject, "vote request from %d", tc.from)
	}
	assert.Equal(t, uint64(2), n.vote)
}

// §5.4.1: a voter denies its vote to a candidate whose log is less
// up-to-date than its own (compare last terms, then lengths).
func TestVoterRejectsOutdatedCandidate_5_4_1(t *testing.T) {
	// The voter's log ends at (index 2, term 2).
	for _, tc := range []struct {
		index, logTerm uint64
		reject         bool
	}{
		{2, 2, false}, // equal
		{3, 2, false}, // longer, same last term
		{1, 3, false}, // higher last term wins even if shorter
		{1, 2, true},  // shorter, same last term
		{5, 1, true},  // longer but older last term
	} {
		n := newTestNode(t, 1, ids(3), PersistentState{Entries: logOfTerms(1, 2), HardState: HardState{Term: 2}}, noPreVote)
		require.NoError(t, n.Step(Message{Type: MsgVote, From: 2, To: 1, Term: 3, Index: tc.index, LogTerm: tc.logTerm}))
		ms := drain(n)
		require.Len(t, ms, 1)
		assert.Equal(t, tc.reject, ms[0].Reject, "candidate log (%d, %d)", tc.index, tc.logTerm)
		assert.Equal(t, uint64(3), n.term, "the vote request's term is adopted either way")
	}
}

// §5.1/§5.2: a server that sees a higher term in any request reverts to
// follower; a candidate also yields to an AppendEntries from a leader of its
// own term. Stale-term requests are ignored.
func TestStepDownOnHigherTermOrLeader_5_1(t *testing.T) {
	for _, tc := range []struct {
		name     string
		role     Role
		msg      Message
		wantRole Role
		wantTerm uint64
		wantLead uint64
	}{
		{"follower higher-term app", Follower, Message{Type: MsgApp, From: 2, Term: 5}, Follower, 5, 2},
		{"candidate same-term app", Candidate, Message{Type: MsgApp, From: 2, Term: 1}, Follower, 1, 2},
		{"candidate higher-term heartbeat", Candidate, Message{Type: MsgHeartbeat, From: 3, Term: 4}, Follower, 4, 3},
		{"leader higher-term vote", Leader, Message{Type: MsgVote, From: 2, Term: 3}, Follower, 3, None},
		{"leader higher-term app resp", Leader, Message{Type: MsgAppResp, From: 2, Term: 3}, Follower, 3, None},
		{"leader stale app", Leader, Message{Type: MsgApp, From: 2, Term: 1}, Leader, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNode(t, 1, ids(3), PersistentState{}, noPreVote)
			switch tc.role {
			case Candidate:
				n.becomeCandidate()
			case Leader:
				n.becomeCandidate()
				n.becomeCandidate()
				n.becomeLeader()
			}
			m := tc.msg
			m.To = 1
			require.NoError(t, n.Step(m))
			assert.Equal(t, tc.wantRole, n.role)
			assert.Equal(t, tc.wantTerm, n.term)
			assert.Equal(t, tc.wantLead, n.lead)
		})
	}
}

// §5.2: a leader sends heartbeats (empty appends) to every follower each
// heartbeat interval to keep its authority.
func TestLeaderSendsHeartbeats_5_2(t *testing.T) {
	n := newTestNode(t, 1, ids(3), PersistentState{}, noPreVote)
	n.becomeCandidate()
	n.becomeLeader()
	drain(n)
	n.Tick()
	hb := msgsOfType(drain(n), MsgHeartbeat)
	require.Len(t, hb, 2)
	for i, m := range hb {
		assert.Equal(t, uint64(i+2), m.To)
		assert.Equal(t, uint64(1), m.Term)
	}
}

// §5.2: in a cluster with randomized timeouts, an election converges on one
// leader that every node recognises.
func TestElectionConverges_5_2(t *testing.T) {
	for _, size := range []int{1, 3, 5} {
		for _, opts := range []func(*Config){noPreVote, nil} {
			nw := newNetwork(t, size, uint64(size), opts)
			for i := 0; i < 100 && !nw.converged(); i++ {
				nw.tick(1)
			}
			require.True(t, nw.converged(), nw.describe())
			require.NoError(t, nw.check())
		}
	}
}

// §5.2 with §5.4.1 and persistence: a crashed voter remembers its term and
// vote, so it cannot vote twice in a term after restarting.
func TestVoteSurvivesRestart_5_2(t *testing.T) {
	nw := newNetwork(t, 3, 1, noPreVote)
	require.NoError(t, nw.node(1).Step(Message{Type: MsgVote, From: 2, To: 1, Term: 7}))
	nw.process(1)
	nw.msgs = nil
	nw.crash(1)
	nw.restart(1)
	n := nw.node(1)
	assert.Equal(t, uint64(7), n.term)
	assert.Equal(t, uint64(2), n.vote)
	require.NoError(t, n.Step(Message{Type: MsgVote, From: 3, To: 1, Term: 7}))
	ms := drain(n)
	require.Len(t, ms, 1)
	assert.True(t, ms[0].Reject)
}
