package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
)

// electLeader1 makes node 1 the leader of a network and returns it.
func electLeader1(t *testing.T, nw *network) *Node {
	t.Helper()
	nw.campaign(1)
	require.Equal(t, uint64(1), nw.leader())
	return nw.node(1)
}

// TestMembershipAddVoter: thesis §4.1. A single-server change adds a voter;
// it takes effect on every node when applied, and the new configuration's
// majority (3 of 4) is then needed to commit. §4.2.1: the new server
// catches up (here by snapshot, which carries the configuration).
func TestMembershipAddVoter(t *testing.T) {
	nw := newNetworkWithVoters(t, 4, 3, 1, noPreVote)
	lead := electLeader1(t, nw)
	require.NoError(t, nw.propose(1, "a"))
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeAddNode, NodeID: 4}))
	nw.tick(3)
	want := ConfState{Voters: []uint64{1, 2, 3, 4}}
	for id := uint64(1); id <= 4; id++ {
		assert.Equal(t, want, nw.node(id).ConfState(), "node %d", id)
	}
	assert.Equal(t, lead.log.committed, nw.node(4).log.committed, "the new voter caught up")
	assert.Equal(t, 2, lead.quorum()-1, "quorum of 4 is 3")

	// Two voters down: 2 of 4 cannot commit.
	nw.isolate(3)
	nw.isolate(4)
	before := lead.log.committed
	require.NoError(t, nw.propose(1, "b"))
	assert.Equal(t, before, lead.log.committed, "2 of 4 voters are no majority")
	require.NoError(t, nw.check())
}

// TestMembershipLearner: thesis §4.2.1. A learner receives the log but never
// votes in the leader's count, never campaigns and never counts towards
// commitment or CheckQuorum.
func TestMembershipLearner(t *testing.T) {
	nw := newNetworkWithVoters(t, 4, 3, 1, func(c *Config) { c.PreVote, c.CheckQuorum = true, true })
	lead := electLeader1(t, nw)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 4}))
	require.NoError(t, nw.propose(1, "a"))
	nw.tick(3)
	learner := nw.node(4)
	assert.Equal(t, ConfState{Voters: []uint64{1, 2, 3}, Learners: []uint64{4}}, learner.ConfState())
	assert.Equal(t, lead.log.committed, learner.log.committed, "the learner receives the log")

	// An isolated learner never campaigns.
	nw.isolate(4)
	term := learner.term
	nw.tickOne(4, 100)
	assert.Equal(t, term, learner.term)
	assert.Equal(t, Follower, learner.role)
	assert.Empty(t, nw.msgs, "no (pre-)vote requests")
	nw.heal()

	// With two voters isolated, the leader and the learner are no
	// majority: nothing commits and CheckQuorum makes the leader step down.
	nw.isolate(2)
	nw.isolate(3)
	before := lead.log.committed
	require.NoError(t, nw.propose(1, "b"))
	assert.Equal(t, before, lead.log.committed, "the learner's ack does not count")
	assert.Greater(t, learner.log.lastIndex(), before, "the learner did get the entry")
	nw.tick(2 * lead.cfg.ElectionTick)
	assert.NotEqual(t, Leader, lead.role, "CheckQuorum does not count the learner")
	require.NoError(t, nw.check())
}

// TestMembershipLearnerCountsInQuorumAblation: with the
// raft-learner-counts-in-quorum ablation the leader counts the learner's
// match towards the voters' majority, so the leader and the learner
// commit an entry no other voter holds (what commit-quorum catches).
func TestMembershipLearnerCountsInQuorumAblation(t *testing.T) {
	nw := newNetworkWithVoters(t, 4, 3, 1, func(c *Config) {
		noPreVote(c)
		c.Ablations = ablation.Of(ablation.LearnerCountsInQuorum)
	})
	lead := electLeader1(t, nw)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 4}))
	nw.tick(2)
	nw.isolate(2)
	nw.isolate(3)
	before := lead.log.committed
	require.NoError(t, nw.propose(1, "b"))
	assert.Greater(t, lead.log.committed, before, "the leader and the learner commit alone")
	assert.Less(t, nw.node(2).log.lastIndex(), lead.log.committed, "a voter lacks the committed entry")
}

// TestMembershipLearnerReadIndex: a ReadIndex round needs a majority of
// voters (thesis §6.4); the learner's heartbeat answer does not count.
func TestMembershipLearnerReadIndex(t *testing.T) {
	nw := newNetworkWithVoters(t, 4, 3, 1, noPreVote)
	lead := electLeader1(t, nw)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 4}))
	nw.tick(2)
	nw.isolate(2)
	nw.isolate(3)
	lead.ReadIndex([]byte("r"))
	nw.stabilize()
	assert.Empty(t, nw.peer(1).reads, "a learner's ack is no quorum")
	nw.heal()
	nw.tick(1)
	assert.Len(t, nw.peer(1).reads, 1, "answered once voters ack")
}

// TestMembershipPromoteLearner: etcd promotes a learner by proposing
// ConfChangeAddNode for it; once applied it is a voter and can lead.
func TestMembershipPromoteLearner(t *testing.T) {
	nw := newNetworkWithVoters(t, 4, 3, 1, noPreVote)
	electLeader1(t, nw)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 4}))
	nw.tick(3)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeAddNode, NodeID: 4}))
	nw.tick(1)
	for id := uint64(1); id <= 4; id++ {
		assert.Equal(t, ConfState{Voters: []uint64{1, 2, 3, 4}}, nw.node(id).ConfState(), "node %d", id)
	}
	nw.campaign(4)
	assert.Equal(t, uint64(4), nw.leader(), "the promoted learner can lead")
	require.NoError(t, nw.check())
}

// TestMembershipRemoveFollower: thesis §4.1. After a removal is applied the
// remaining voters form the quorum: 2 of {1, 2} commit without node 3.
func TestMembershipRemoveFollower(t *testing.T) {
	nw := newNetworkWithVoters(t, 3, 3, 1, noPreVote)
	lead := electLeader1(t, nw)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeRemoveNode, NodeID: 3}))
	nw.tick(1)
	assert.Equal(t, ConfState{Voters: []uint64{1, 2}}, lead.ConfState())
	nw.crash(3)
	require.NoError(t, nw.propose(1, "after"))
	assert.Equal(t, lead.log.lastIndex(), lead.log.committed, "1 and 2 are a majority of {1, 2}")
	nw.crash(2)
	require.NoError(t, nw.propose(1, "alone"))
	assert.Less(t, lead.log.committed, lead.log.lastIndex(), "1 alone is not")
}

// TestMembershipOneChangeAtATime: thesis §4.1 ("the leader does not start a
// new change until the previous one is committed"): as in go.etcd.io/raft,
// a conf change proposed while an earlier one is unapplied becomes an empty
// entry. The raft-conf-change-unguarded ablation appends both.
func TestMembershipOneChangeAtATime(t *testing.T) {
	for _, tc := range []struct {
		name string
		abl  ablation.Set
		want int // conf change entries in the log
	}{
		{"guarded", ablation.Set{}, 1},
		{"ablation raft-conf-change-unguarded", ablation.Of(ablation.ConfChangeUnguarded), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nw := newNetworkWithVoters(t, 5, 3, 1, func(c *Config) { noPreVote(c); c.Ablations = tc.abl })
			lead := electLeader1(t, nw)
			require.NoError(t, lead.ProposeConfChange(ConfChange{Type: ConfChangeAddNode, NodeID: 4}))
			require.NoError(t, lead.ProposeConfChange(ConfChange{Type: ConfChangeAddNode, NodeID: 5}))
			ccs := 0
			for _, e := range lead.log.ents {
				if e.Type == EntryConfChange {
					ccs++
				}
			}
			assert.Equal(t, tc.want, ccs)
			wantLast := EntryEmpty // the refused change's place
			if tc.want == 2 {
				wantLast = EntryConfChange
			}
			assert.Equal(t, wantLast, lead.log.entry(lead.log.lastIndex()).Type)
			nw.stabilize()
			// Once the first change is applied, a new one is accepted.
			require.NoError(t, lead.ProposeConfChange(ConfChange{Type: ConfChangeAddNode, NodeID: 5}))
			assert.Equal(t, EntryConfChange, lead.log.entry(lead.log.lastIndex()).Type)
		})
	}
}

// TestMembershipNewLeaderGuard: a new leader accepts no conf change until
// it has applied its whole log (becomeLeader sets pendingConfIndex to its
// last index), since any entry it inherited may be an unapplied change.
func TestMembershipNewLeaderGuard(t *testing.T) {
	n := newTestNode(t, 1, ids(3), PersistentState{HardState: HardState{Term: 1}, Entries: logOfTerms(1, 1)}, noPreVote)
	n.becomeCandidate()
	n.becomeLeader()
	require.NoError(t, n.ProposeConfChange(ConfChange{Type: ConfChangeAddNode, NodeID: 4}))
	assert.Equal(t, EntryEmpty, n.log.entry(n.log.lastIndex()).Type, "refused while the log is unapplied")
}

// TestMembershipRemoveLeader: thesis §4.2.2. The leader removes itself; once
// the removal is applied it steps down, the remaining servers elect a leader
// among themselves, and the removed server never campaigns again.
func TestMembershipRemoveLeader(t *testing.T) {
	nw := newNetworkWithVoters(t, 3, 3, 1, func(c *Config) { c.PreVote, c.CheckQuorum = true, true })
	lead := electLeader1(t, nw)
	require.NoError(t, nw.propose(1, "a"))
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeRemoveNode, NodeID: 1}))
	assert.Equal(t, Follower, lead.role, "a removed leader steps down")
	assert.Equal(t, ConfState{Voters: []uint64{2, 3}}, lead.ConfState())
	nw.tick(4 * lead.cfg.ElectionTick)
	l := nw.leader()
	assert.Contains(t, []uint64{2, 3}, l, "a remaining server leads")
	require.NoError(t, nw.propose(l, "b"))
	assert.Equal(t, nw.node(l).log.lastIndex(), nw.node(l).log.committed)
	assert.NotEqual(t, Leader, lead.role)
	assert.False(t, lead.isVoter())
	require.NoError(t, nw.check())
}

// TestMembershipDisruptiveServer: thesis §4.2.3. A removed server that never
// learned of its removal times out and campaigns in a higher term. Without
// PreVote or CheckQuorum it deposes the healthy leader; with PreVote its
// poll fails (its log is behind), and with CheckQuorum the others, in the
// lease of a live leader, ignore it.
func TestMembershipDisruptiveServer(t *testing.T) {
	for _, tc := range []struct {
		name              string
		preVote, checkQ   bool
		wantLeaderDeposed bool
	}{
		{"plain Raft", false, false, true},
		{"PreVote", true, false, false},
		{"CheckQuorum", false, true, false},
		{"both", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nw := newNetworkWithVoters(t, 3, 3, 1, func(c *Config) { c.PreVote, c.CheckQuorum = tc.preVote, tc.checkQ })
			lead := electLeader1(t, nw)
			nw.isolate(3) // 3 never hears of its removal
			require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeRemoveNode, NodeID: 3}))
			require.NoError(t, nw.propose(1, "a"))
			require.Equal(t, ConfState{Voters: []uint64{1, 2}}, lead.ConfState())
			term := lead.term
			// 3 campaigns on its own, then its requests reach the others.
			nw.tickOne(3, 3*lead.cfg.ElectionTick)
			nw.msgs = nil
			nw.heal()
			require.NoError(t, nw.node(3).Step(Message{Type: MsgHup}))
			nw.stabilize()
			nw.heal()
			nw.tick(1)
			deposed := lead.term != term || lead.role != Leader
			assert.Equal(t, tc.wantLeaderDeposed, deposed, "leader %v term %d (was %d)", lead.role, lead.term, term)
			require.NoError(t, nw.check())
		})
	}
}

// TestMembershipRestart: the configuration survives restarts, rebuilt from
// the snapshot's ConfState plus the conf changes applied after it (with and
// without a snapshot), and from PersistentState.ConfState.
func TestMembershipRestart(t *testing.T) {
	nw := newNetworkWithVoters(t, 5, 3, 1, noPreVote)
	lead := electLeader1(t, nw)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 4}))
	nw.tick(3)
	// The leader snapshotted to catch the joining learner up (§4.2.1).
	require.NotNil(t, lead.Snapshot())
	require.NotNil(t, nw.peer(4).store.snap, "the learner was caught up by snapshot")
	assert.Equal(t, ConfState{Voters: []uint64{1, 2, 3}, Learners: []uint64{4}}, lead.Snapshot().ConfState)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeRemoveNode, NodeID: 2}))
	nw.tick(1)
	want := ConfState{Voters: []uint64{1, 3}, Learners: []uint64{4}}
	for _, id := range []uint64{1, 3, 4} {
		nw.crash(id)
		nw.restart(id)
		nw.process(id) // re-apply the committed entries after the snapshot
		assert.Equal(t, want, nw.node(id).ConfState(), "node %d after restart", id)
	}
	// The application may persist the configuration with its applied index.
	cs := want.Clone()
	ps := nw.peer(3).store.state()
	ps.ConfState = &cs
	n, err := New(Config{ID: 3, Applied: ps.HardState.Commit, Rand: fixedRand(0)}, ps)
	require.NoError(t, err)
	assert.Equal(t, want, n.ConfState())
	require.NoError(t, nw.check())
}

// TestConfChangeEncoding: a conf change round-trips through an entry's Data
// and applies as single-server changes do.
func TestConfChangeEncoding(t *testing.T) {
	cc := ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 300, Context: []byte("peer-url")}
	got, err := UnmarshalConfChange(cc.Marshal())
	require.NoError(t, err)
	assert.Equal(t, cc, got)
	for _, bad := range [][]byte{nil, {0}, {9, 1}, {byte(ConfChangeAddLearnerNode) + 1, 1}, {0, 0x80}, {0, 0x80, 0x80}} {
		_, err = UnmarshalConfChange(bad)
		assert.ErrorIs(t, err, errBadConfChange, "%v", bad)
	}
	got, err = UnmarshalConfChange(ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 5}.Marshal())
	require.NoError(t, err)
	assert.Equal(t, ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 5}, got, "no context decodes as none")

	cs := ConfState{Voters: []uint64{1}}
	for _, tc := range []struct {
		cc   ConfChange
		want ConfState
		err  bool
	}{
		{ConfChange{Type: ConfChangeAddLearnerNode, NodeID: 2}, ConfState{Voters: []uint64{1}, Learners: []uint64{2}}, false},
		{ConfChange{Type: ConfChangeAddNode, NodeID: 2}, ConfState{Voters: []uint64{1, 2}}, false},
		{ConfChange{Type: ConfChangeRemoveNode, NodeID: 2}, ConfState{Voters: []uint64{1}}, false},
		{ConfChange{Type: ConfChangeRemoveNode, NodeID: 1}, ConfState{Voters: []uint64{1}}, true},
	} {
		next, err := cs.apply(tc.cc)
		assert.Equal(t, tc.err, err != nil, "%v", tc.cc)
		assert.Equal(t, tc.want, next, "%v", tc.cc)
		cs = next
	}
}

// TestMembershipUnguardedTwoLeaders: why one change at a time (thesis §4.1).
// With the raft-conf-change-unguarded ablation, leader 1 of {1, 2, 3}
// appends two removals (3, then 2) at once; both commit with 2's
// acknowledgement, but 2 never learns that they did (the leader's later
// messages to it are lost). Leader 1 applies both and is alone in its
// configuration {1}; 2 and 3 still use {1, 2, 3}. Both sides then elect a
// leader in the same term: {1} and {2, 3} are disjoint majorities (the
// network's checker reports the election safety violation).
// Guarded, the second removal is an empty entry, 1's configuration is
// {1, 2}, and 1 cannot win alone.
func TestMembershipUnguardedTwoLeaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		abl  ablation.Set
		want bool // two leaders in one term
	}{
		{"guarded", ablation.Set{}, false},
		{"ablation raft-conf-change-unguarded", ablation.Of(ablation.ConfChangeUnguarded), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nw := newNetworkWithVoters(t, 3, 3, 1, func(c *Config) { noPreVote(c); c.Ablations = tc.abl })
			lead := electLeader1(t, nw)
			nw.isolate(3)
			before := lead.log.committed
			// 2 never hears that the changes committed.
			nw.drop = func(m Message) bool { return m.To == 2 && m.Commit > before }
			require.NoError(t, lead.ProposeConfChange(ConfChange{Type: ConfChangeRemoveNode, NodeID: 3}))
			require.NoError(t, lead.ProposeConfChange(ConfChange{Type: ConfChangeRemoveNode, NodeID: 2}))
			last := lead.log.lastIndex()
			nw.stabilize()
			require.Equal(t, last, lead.log.committed)
			require.Equal(t, before, nw.node(2).log.committed)

			// 1 restarts alone and campaigns in its own configuration.
			nw.heal()
			nw.isolate(1)
			nw.crash(1)
			nw.restart(1)
			nw.process(1)
			require.NoError(t, nw.node(1).Step(Message{Type: MsgHup}))
			nw.process(1)
			if !tc.want {
				assert.NotEqual(t, Leader, nw.node(1).role, "1 is no majority of {1, 2}")
			}
			// 2 and 3 elect a leader among themselves (2 then commits
			// the removals it holds, and steps down).
			nw.campaign(2)
			if tc.want {
				require.ErrorContains(t, nw.check(), "both leaders in term 2")
			} else {
				require.NoError(t, nw.check())
			}
		})
	}
}

// TestMembershipRestartReplaysApplied: a node restarted without a persisted
// configuration, with Config.Applied up to a conf change entry, starts in
// the configuration that entry made, and one restarted with Applied just
// before it in the configuration before: it replays the applied conf
// changes after its snapshot, up to and including Applied, so that it uses
// the latest configuration it applied (thesis §4.1).
func TestMembershipRestartReplaysApplied(t *testing.T) {
	nw := newNetworkWithVoters(t, 3, 3, 1, noPreVote)
	electLeader1(t, nw)
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeRemoveNode, NodeID: 2}))
	nw.tick(1)
	ps := nw.peer(3).store.state()
	require.Nil(t, ps.Snapshot)
	var at uint64
	for _, e := range ps.Entries {
		if e.Type == EntryConfChange {
			at = e.Index
		}
	}
	require.NotZero(t, at, "the removal is in node 3's log")
	require.GreaterOrEqual(t, ps.HardState.Commit, at)
	for _, c := range []struct {
		applied uint64
		want    ConfState
	}{
		{at - 1, ConfState{Voters: []uint64{1, 2, 3}}},
		{at, ConfState{Voters: []uint64{1, 3}}},
	} {
		n, err := New(Config{ID: 3, Peers: []uint64{1, 2, 3}, Applied: c.applied, Rand: fixedRand(0)}, ps)
		require.NoError(t, err)
		assert.Equal(t, c.want, n.ConfState(), "applied %d", c.applied)
	}
}

// TestMembershipReadIndexAcrossChange: a ReadIndex round still pending when
// a conf change applies keeps the acknowledgements it has, moved to the
// members' new positions, and completes once a quorum of the new
// configuration has acknowledged it; the removed member's acknowledgement
// counts for nothing (thesis §6.4: the leader confirms its leadership with
// a quorum of the configuration it now uses, §4.1).
func TestMembershipReadIndexAcrossChange(t *testing.T) {
	nw := newNetworkWithVoters(t, 3, 3, 1, noPreVote)
	lead := electLeader1(t, nw)
	nw.hold = func(m Message) bool { return m.Type == MsgHeartbeatResp && m.Index > 0 }
	lead.ReadIndex([]byte("r"))
	nw.stabilize()
	require.Empty(t, nw.peer(1).reads, "no acknowledgement has arrived")
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeRemoveNode, NodeID: 2}))
	require.Equal(t, ConfState{Voters: []uint64{1, 3}}, lead.ConfState())
	require.Empty(t, nw.peer(1).reads, "still pending after the change")
	held := nw.held
	nw.held, nw.hold = nil, nil
	var from2, from3 []Message
	for _, m := range held {
		switch m.From {
		case 2:
			from2 = append(from2, m)
		case 3:
			from3 = append(from3, m)
		}
	}
	require.NotEmpty(t, from2)
	require.NotEmpty(t, from3)
	for _, m := range from2 {
		nw.deliver(m)
		nw.process(1)
	}
	assert.Empty(t, nw.peer(1).reads, "the removed member's acknowledgement does not count")
	for _, m := range from3 {
		nw.deliver(m)
		nw.process(1)
	}
	assert.Len(t, nw.peer(1).reads, 1, "answered by the leader and the voter left")
}

// TestMembershipReadIndexDropsRemovedAck: an acknowledgement the removed
// member gave before the change is dropped with it, not moved to another
// member's position: with five voters, the leader and the removed member
// had acknowledged; afterwards one more voter's acknowledgement is not a
// quorum of the four left, and two are.
func TestMembershipReadIndexDropsRemovedAck(t *testing.T) {
	nw := newNetworkWithVoters(t, 5, 5, 1, noPreVote)
	lead := electLeader1(t, nw)
	nw.hold = func(m Message) bool { return m.Type == MsgHeartbeatResp && m.Index > 0 && m.From != 2 }
	lead.ReadIndex([]byte("r"))
	nw.stabilize()
	require.Empty(t, nw.peer(1).reads, "two acknowledgements of five")
	require.NoError(t, nw.proposeConfChange(1, ConfChange{Type: ConfChangeRemoveNode, NodeID: 2}))
	require.Equal(t, ConfState{Voters: []uint64{1, 3, 4, 5}}, lead.ConfState())
	held := nw.held
	nw.held, nw.hold = nil, nil
	for _, from := range []uint64{4, 5} {
		for _, m := range held {
			if m.From == from {
				nw.deliver(m)
				nw.process(1)
			}
		}
		if from == 4 {
			assert.Empty(t, nw.peer(1).reads, "the leader and node 4: two of four")
		}
	}
	assert.Len(t, nw.peer(1).reads, 1, "the leader, nodes 4 and 5: three of four")
}
