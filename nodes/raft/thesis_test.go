package raft

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Thesis §9.6 (PreVote): a node cut off from the cluster keeps timing out
// but, polling first, never bumps its term, so when it rejoins the leader
// keeps its leadership and term. Without PreVote its term races ahead and
// its return forces the leader to step down.
func TestPreVotePreventsDisruptionByRejoiningNode_9_6(t *testing.T) {
	for _, tc := range []struct {
		preVote, checkQuorum bool
		disrupted            bool
	}{
		{true, true, false},
		{true, false, false},
		{false, false, true},
		{false, true, true},
	} {
		t.Run(fmt.Sprintf("PreVote=%v/CheckQuorum=%v", tc.preVote, tc.checkQuorum), func(t *testing.T) {
			nw := newNetwork(t, 3, 1, func(c *Config) { c.PreVote, c.CheckQuorum = tc.preVote, tc.checkQuorum })
			nw.campaign(1)
			require.Equal(t, Leader, nw.node(1).role)
			term := nw.node(1).term
			nw.isolate(3)
			nw.tick(100)
			if tc.preVote {
				assert.Equal(t, term, nw.node(3).term, "no term bump while partitioned")
			} else {
				assert.Greater(t, nw.node(3).term, term)
			}
			nw.heal()
			nw.tick(2 * nw.node(1).cfg.ElectionTick)
			assert.Equal(t, tc.disrupted, nw.node(1).role != Leader || nw.node(1).term != term, nw.describe())
			for i := 0; i < 60 && !nw.converged(); i++ {
				nw.tick(1)
			}
			require.True(t, nw.converged(), nw.describe())
			require.NoError(t, nw.check())
		})
	}
}

// Thesis §6.2 (CheckQuorum): a leader that has not heard from a quorum for
// an election timeout steps down, so that a partitioned leader stops
// claiming leadership (and serving leases).
func TestCheckQuorumLeaderStepsDown_6_2(t *testing.T) {
	for _, checkQuorum := range []bool{true, false} {
		nw := newNetwork(t, 3, 1, func(c *Config) { c.CheckQuorum = checkQuorum })
		nw.campaign(1)
		nw.isolate(1)
		nw.tickOne(1, 2*nw.node(1).cfg.ElectionTick)
		if checkQuorum {
			assert.Equal(t, Follower, nw.node(1).role)
		} else {
			assert.Equal(t, Leader, nw.node(1).role)
		}
	}
}

// Thesis §6.2/§4.2.3 (leader lease): with CheckQuorum, a follower that heard
// from its leader within the election timeout ignores vote requests, even
// of a higher term; after the timeout it votes again. A leadership-transfer
// campaign bypasses the lease.
func TestFollowerLeaseIgnoresVotes_6_2(t *testing.T) {
	n := newTestNode(t, 2, ids(3), PersistentState{}, func(c *Config) { c.CheckQuorum, c.PreVote = true, false })
	require.NoError(t, n.Step(Message{Type: MsgHeartbeat, From: 1, To: 2, Term: 1}))
	drain(n)
	require.NoError(t, n.Step(Message{Type: MsgVote, From: 3, To: 2, Term: 2}))
	assert.Empty(t, drain(n), "vote request ignored in lease")
	assert.Equal(t, uint64(1), n.term)
	require.NoError(t, n.Step(Message{Type: MsgVote, From: 3, To: 2, Term: 2, Context: transferContext}))
	ms := drain(n)
	require.Len(t, ms, 1)
	assert.False(t, ms[0].Reject, "transfer campaign bypasses the lease")

	m := newTestNode(t, 2, ids(3), PersistentState{}, func(c *Config) { c.CheckQuorum, c.PreVote = true, false; c.Rand = fixedRand(5) })
	require.NoError(t, m.Step(Message{Type: MsgHeartbeat, From: 1, To: 2, Term: 1}))
	for i := 0; i < 10; i++ {
		m.Tick()
	}
	drain(m)
	require.NoError(t, m.Step(Message{Type: MsgVote, From: 3, To: 2, Term: 2}))
	ms = drain(m)
	require.Len(t, ms, 1)
	assert.False(t, ms[0].Reject, "lease expired")
}

// Thesis §6.4 (ReadIndex): the leader answers a read with its commit index
// only after a heartbeat round acknowledged by a quorum; a follower's read is
// forwarded to the leader; an isolated leader cannot answer.
func TestReadIndex_6_4(t *testing.T) {
	nw := newNetwork(t, 3, 1, nil)
	nw.campaign(1)
	require.NoError(t, nw.propose(1, "a"))

	nw.node(1).ReadIndex([]byte("r1"))
	nw.stabilize()
	assert.Equal(t, []ReadState{{Index: 2, Ctx: []byte("r1")}}, nw.peer(1).reads)

	nw.node(3).ReadIndex([]byte("r2"))
	nw.stabilize()
	assert.Equal(t, []ReadState{{Index: 2, Ctx: []byte("r2")}}, nw.peer(3).reads)

	nw.isolate(1)
	nw.node(1).ReadIndex([]byte("r3"))
	nw.stabilize()
	nw.tickOne(1, 3)
	assert.Len(t, nw.peer(1).reads, 1, "no quorum, no answer")
}

// Thesis §6.4 step 1: a new leader does not know the latest commit index
// until it has committed an entry of its own term, so reads wait for that.
func TestReadIndexWaitsForCurrentTermCommit_6_4(t *testing.T) {
	nw := newNetwork(t, 3, 1, nil)
	nw.hold = func(m Message) bool { return m.Type == MsgAppResp }
	nw.campaign(1)
	require.Equal(t, Leader, nw.node(1).role)
	nw.node(1).ReadIndex([]byte("r"))
	nw.stabilize()
	assert.Empty(t, nw.peer(1).reads)
	nw.hold = nil
	nw.release()
	nw.stabilize()
	assert.Equal(t, []ReadState{{Index: 1, Ctx: []byte("r")}}, nw.peer(1).reads)
}

// Thesis §3.10 (leadership transfer): the leader brings the transferee up to
// date, then tells it to campaign immediately (MsgTimeoutNow); proposals
// are refused meanwhile; a transfer that cannot finish within an election
// timeout is abandoned.
func TestLeaderTransfer_3_10(t *testing.T) {
	nw := newNetwork(t, 3, 1, nil) // PreVote and CheckQuorum on: the transfer must bypass both
	nw.campaign(1)
	nw.node(1).TransferLeader(2)
	nw.stabilize()
	assert.Equal(t, Leader, nw.node(2).role)
	assert.Equal(t, uint64(2), nw.node(2).term)

	// Transfer to a lagging follower: it is caught up first.
	nw.isolate(3)
	require.NoError(t, nw.propose(2, "a"))
	nw.heal()
	nw.node(1).TransferLeader(3) // forwarded by a follower
	nw.stabilize()
	assert.Equal(t, Leader, nw.node(3).role)
	assert.Equal(t, uint64(4), nw.node(3).log.committed, "caught up, plus its own no-op")

	// A transfer to an unreachable node blocks proposals, then times out.
	nw.isolate(1)
	l := nw.node(3)
	l.TransferLeader(1)
	nw.stabilize()
	assert.ErrorIs(t, l.Propose([]byte("x")), ErrProposalDropped)
	nw.tickOne(3, l.cfg.ElectionTick)
	assert.Equal(t, None, l.leadTransferee)
	require.NoError(t, nw.check())
}

// Determinism (docs/design.md, principle 1): the same seed gives the same run.
func TestDeterministicRun(t *testing.T) {
	trace := func() []string {
		var out []string
		nw := newNetwork(t, 5, 42, nil)
		nw.hold = func(m Message) bool {
			out = append(out, fmt.Sprintf("%v %d>%d t%d i%d", m.Type, m.From, m.To, m.Term, m.Index))
			return false
		}
		for i := 0; i < 50; i++ {
			nw.tick(1)
			if l := nw.leader(); l != None && i%5 == 0 {
				_ = nw.propose(l, fmt.Sprint(i))
			}
			if i == 20 {
				nw.isolate(nw.leader())
			}
		}
		return out
	}
	a, b := trace(), trace()
	require.NotEmpty(t, a)
	assert.Equal(t, a, b)
}
