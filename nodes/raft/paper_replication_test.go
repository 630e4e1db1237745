package raft

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
)

// §5.3: an entry is committed once the leader has replicated it on a
// majority, and then applied on every node, in log order.
func TestLeaderCommitsOnMajority_5_3(t *testing.T) {
	nw := newNetwork(t, 5, 1, noPreVote)
	nw.campaign(1)
	require.Equal(t, Leader, nw.node(1).role)
	nw.isolate(4)
	nw.isolate(5)
	require.NoError(t, nw.propose(1, "a"))
	assert.Equal(t, uint64(2), nw.node(1).log.committed, "3 of 5 hold it")
	nw.isolate(3)
	require.NoError(t, nw.propose(1, "b"))
	assert.Equal(t, uint64(2), nw.node(1).log.committed, "2 of 5 do not commit")
	nw.heal()
	nw.tick(1)
	for _, p := range nw.peers {
		assert.Equal(t, uint64(3), p.node.log.committed, "node %d", p.id)
		assert.Equal(t, uint64(3), p.applied, "node %d", p.id)
	}
	require.NoError(t, nw.check())
}

// §5.3: the follower side of AppendEntries — consistency check on
// (prevLogIndex, prevLogTerm), truncation of conflicting suffixes, and a
// rejection hint pointing at the follower's last entry of a term <= the
// leader's, for fast backtracking.
func TestFollowerAppendEntries_5_3(t *testing.T) {
	for _, tc := range []struct {
		name           string
		index, logTerm uint64
		ents           []Entry
		wantTerms      []uint64
		wantReject     bool
		wantIndex      uint64
		wantHint       uint64
		wantHintTerm   uint64
	}{
		{"append", 2, 2, []Entry{{Index: 3, Term: 2}}, []uint64{1, 2, 2}, false, 3, 0, 0},
		{"truncate conflict", 1, 1, []Entry{{Index: 2, Term: 3}}, []uint64{1, 3}, false, 2, 0, 0},
		{"duplicate", 0, 0, []Entry{{Index: 1, Term: 1}}, []uint64{1, 2}, false, 1, 0, 0},
		{"heartbeat-like", 2, 2, nil, []uint64{1, 2}, false, 2, 0, 0},
		{"gap", 3, 2, []Entry{{Index: 4, Term: 2}}, []uint64{1, 2}, true, 3, 2, 2},
		{"term mismatch", 2, 3, []Entry{{Index: 3, Term: 3}}, []uint64{1, 2}, true, 2, 2, 2},
		{"older term mismatch", 2, 1, nil, []uint64{1, 2}, true, 2, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNode(t, 1, ids(3), PersistentState{Entries: logOfTerms(1, 2), HardState: HardState{Term: 2}}, noPreVote)
			require.NoError(t, n.Step(Message{Type: MsgApp, From: 2, To: 1, Term: 3, Index: tc.index, LogTerm: tc.logTerm, Entries: tc.ents}))
			assert.Equal(t, tc.wantTerms, logTerms(n))
			ms := drain(n)
			require.Len(t, ms, 1)
			m := ms[0]
			assert.Equal(t, MsgAppResp, m.Type)
			assert.Equal(t, tc.wantReject, m.Reject)
			assert.Equal(t, tc.wantIndex, m.Index)
			assert.Equal(t, tc.wantHint, m.RejectHint)
			assert.Equal(t, tc.wantHintTerm, m.LogTerm)
		})
	}
}

// §5.3, Figure 7: whatever a follower's log looks like (missing entries,
// extra uncommitted entries, or both), the leader of term 8 brings it in
// line with its own. With fast backtracking each rejection skips at least a
// whole term, so rejections are bounded by the number of terms.
func TestLeaderBringsFollowersInLine_Figure7(t *testing.T) {
	leaderLog := []uint64{1, 1, 1, 4, 4, 5, 5, 6, 6, 6}
	for _, tc := range []struct {
		name string
		log  []uint64
	}{
		{"a", []uint64{1, 1, 1, 4, 4, 5, 5, 6, 6}},
		{"b", []uint64{1, 1, 1, 4}},
		{"c", []uint64{1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 6}},
		{"d", []uint64{1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 7, 7}},
		{"e", []uint64{1, 1, 1, 4, 4, 4, 4}},
		{"f", []uint64{1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3}},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nw := newNetwork(t, 2, 1, noPreVote)
			nw.setLog(1, PersistentState{HardState: HardState{Term: 7}, Entries: logOfTerms(leaderLog...)})
			nw.setLog(2, PersistentState{HardState: HardState{Term: 7}, Entries: logOfTerms(tc.log...)})
			l := nw.node(1)
			l.becomeCandidate() // term 8; the vote is granted by fiat
			l.becomeLeader()
			l.bcastAppend()
			rejects := 0
			nw.hold = func(m Message) bool {
				if m.Type == MsgAppResp && m.Reject {
					rejects++
				}
				return false
			}
			nw.stabilize()
			want := append(append([]uint64{}, leaderLog...), 8)
			assert.Equal(t, want, logTerms(nw.node(2)))
			assert.Equal(t, uint64(11), nw.node(2).log.committed)
			assert.LessOrEqual(t, rejects, 4, "fast backtracking")
			require.NoError(t, nw.check())
		})
	}
}

// §5.4.2: a leader never commits an entry from an earlier term by counting
// replicas; it commits it only indirectly, once an entry of its own term is
// replicated on a majority. The CommitOldTerm ablation breaks exactly this.
func TestLeaderCommitsOnlyCurrentTermEntries_5_4_2(t *testing.T) {
	for _, tc := range []struct {
		ablation   bool
		wantCommit uint64
	}{{false, 0}, {true, 2}} {
		t.Run(fmt.Sprintf("CommitOldTerm=%v", tc.ablation), func(t *testing.T) {
			nw := newNetwork(t, 3, 1, func(c *Config) {
				noPreVote(c)
				c.MaxEntriesPerMsg = 1
				c.Ablations = ablation.When(tc.ablation, ablation.CommitOldTerm)
			})
			// Node 1 holds two term-1 entries nobody committed; it becomes
			// leader of term 2 and appends its no-op at index 3.
			nw.setLog(1, PersistentState{HardState: HardState{Term: 1}, Entries: logOfTerms(1, 1)})
			nw.setLog(2, PersistentState{HardState: HardState{Term: 1}, Entries: logOfTerms(1)})
			nw.setLog(3, PersistentState{HardState: HardState{Term: 1}, Entries: logOfTerms(1)})
			// Hold the no-op once a follower holds the old entry.
			nw.hold = func(m Message) bool {
				return m.Type == MsgApp && len(m.Entries) > 0 && m.Entries[0].Term == 2 &&
					nw.node(m.To).log.lastIndex() >= 2
			}
			nw.campaign(1)
			l := nw.node(1)
			require.Equal(t, Leader, l.role)
			require.Equal(t, uint64(2), nw.node(2).log.lastIndex(), "old entry replicated")
			assert.Equal(t, tc.wantCommit, l.log.committed)
			nw.release()
			nw.hold = nil
			nw.stabilize()
			assert.Equal(t, uint64(3), l.log.committed, "committed through the current-term no-op")
		})
	}
}

// §5.3 flow control: in probe state the leader sends one MsgApp at a time;
// in replicate state at most MaxInflightMsgs are in flight per follower.
func TestFlowControlCapsInflightAppends_5_3(t *testing.T) {
	nw := newNetwork(t, 2, 1, func(c *Config) {
		noPreVote(c)
		c.MaxInflightMsgs = 3
		c.MaxEntriesPerMsg = 1
	})
	nw.campaign(1)
	l := nw.node(1)
	require.Equal(t, stateReplicate, l.prs[1].state)
	// Hold the follower's acknowledgements: the window fills up.
	nw.hold = func(m Message) bool { return m.Type == MsgAppResp }
	for i := 0; i < 10; i++ {
		require.NoError(t, l.Propose([]byte{byte(i)}))
		nw.process(1)
	}
	apps := 0
	for _, m := range nw.msgs {
		if m.Type == MsgApp && len(m.Entries) > 0 {
			apps++
		}
	}
	assert.Equal(t, 3, apps)
	nw.stabilize()
	nw.hold = nil
	nw.release()
	nw.stabilize()
	assert.Equal(t, uint64(11), nw.node(2).log.committed)

	// A follower that lost track (probe state) gets one MsgApp at a time.
	l.prs[1].becomeProbe()
	nw.hold = func(m Message) bool { return m.Type == MsgAppResp }
	for i := 0; i < 5; i++ {
		require.NoError(t, l.Propose([]byte{byte(i)}))
		nw.process(1)
	}
	assert.Equal(t, 1, nw.countType(MsgApp))
}

// §5.3 with thesis §3.5 (robustness): lost appends in replicate state are
// recovered, through rejection of the next append or stall detection.
func TestReplicationRecoversFromLoss_5_3(t *testing.T) {
	nw := newNetwork(t, 3, 1, func(c *Config) { noPreVote(c); c.MaxEntriesPerMsg = 1 })
	nw.campaign(1)
	nw.drop = func(m Message) bool { return m.Type == MsgApp && m.To == 3 }
	require.NoError(t, nw.propose(1, "a"))
	require.NoError(t, nw.propose(1, "b"))
	nw.drop = nil
	nw.tick(30)
	assert.Equal(t, uint64(3), nw.node(3).log.committed)
	require.NoError(t, nw.check())
}

// §5.3 (clients): a follower forwards proposals to the leader it knows;
// without a leader, or as a candidate, the proposal is dropped.
func TestProposalForwarding(t *testing.T) {
	nw := newNetwork(t, 3, 1, nil)
	assert.ErrorIs(t, nw.node(2).Propose([]byte("x")), ErrProposalDropped, "no leader yet")
	nw.campaign(1)
	require.NoError(t, nw.propose(2, "via follower"))
	for _, p := range nw.peers {
		e := p.node.log.entry(2)
		assert.Equal(t, "via follower", string(e.Data))
		assert.Equal(t, uint64(2), p.node.log.committed)
	}
	c := newTestNode(t, 1, ids(3), PersistentState{}, noPreVote)
	c.becomeCandidate()
	assert.ErrorIs(t, c.Propose([]byte("x")), ErrProposalDropped)
}
