package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Paper §5.3: the leader sends AppendEntries to carry entries or news of
// the commit index. An acknowledgement that neither moves the commit index
// nor leaves the follower anything to learn makes the leader send nothing,
// to that follower or the others. go.etcd.io/raft raft.go, stepLeader case
// MsgAppResp: bcastAppend only if r.maybeCommit() (the commit index moved),
// else sendAppend only if pr.CanBumpCommit(committed).
func TestLeaderQuietOnAckWithoutNews_5_3(t *testing.T) {
	nw := newNetwork(t, 3, 1, noPreVote)
	nw.campaign(1)
	l := nw.node(1)
	nw.hold = func(m Message) bool { return m.Type == MsgAppResp }
	require.NoError(t, nw.propose(1, "a"))
	held := nw.held
	nw.held, nw.hold = nil, nil
	require.Len(t, held, 2)

	// The first ack commits "a" and tells both followers.
	require.NoError(t, l.Step(held[0]))
	nw.process(1)
	require.Equal(t, l.log.lastIndex(), l.log.committed)
	require.Len(t, msgsOfType(nw.msgs, MsgApp), 2)
	nw.msgs = nil

	// The second follower's ack raises its match only: nothing to send.
	require.NoError(t, l.Step(held[1]))
	nw.process(1)
	assert.Equal(t, l.log.lastIndex(), l.prs[l.peerIndex(held[1].From)].match)
	assert.Empty(t, nw.msgs)
}

// Paper §5.3 with flow control: the leader falls back to probing a
// follower in replicate state only when its appends went unanswered for an
// election timeout (kubesim's stand-in for go.etcd.io/raft's
// ReportUnreachable): an idle follower that answers heartbeats stays in
// replicate state however long the log is quiet, and one with appends
// outstanding is probed after ElectionTick ticks, not before.
func TestLeaderStallDetection_5_3(t *testing.T) {
	nw := newNetwork(t, 3, 1, noPreVote)
	nw.campaign(1)
	l := nw.node(1)
	nw.tick(3 * l.cfg.ElectionTick)
	for i := range l.prs {
		assert.Equal(t, stateReplicate, l.prs[i].state, "idle peer %d", l.peers[i])
	}

	nw.drop = func(m Message) bool { return m.Type == MsgApp && m.To == 3 }
	require.NoError(t, nw.propose(1, "a"))
	nw.drop = nil
	pr := &l.prs[l.peerIndex(3)]
	require.Equal(t, 1, pr.ins.count)
	// Heartbeat answers keep coming; the lost append stays unanswered.
	nw.hold = func(m Message) bool { return m.Type == MsgApp && m.To == 3 }
	nw.tick(l.cfg.ElectionTick - 1)
	assert.Equal(t, stateReplicate, pr.state, "one tick before the election timeout")
	nw.tick(1)
	assert.Equal(t, stateProbe, pr.state, "unanswered for an election timeout")
}

// Paper §7: a snapshot whose last entry the follower already holds keeps
// the log, moves the commit index up to the snapshot if it was below, and
// is answered with the commit index, never the last index: the entries
// after it may be an older term's, which the leader must not count as
// replicated. go.etcd.io/raft raft.go, restore: Index <= committed, or
// matchTerm then commitTo, returns false; handleSnapshot then answers
// Index: r.raftLog.committed.
func TestSnapshotTheLogHoldsAnsweredWithCommit_7(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit uint64
	}{
		{"at the commit index", 2},
		{"beyond the commit index", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNode(t, 2, ids(3), PersistentState{
				HardState: HardState{Term: 2, Commit: tc.commit},
				Entries:   logOfTerms(1, 1, 2, 2),
			}, noPreVote)
			require.NoError(t, n.Step(Message{Type: MsgSnap, From: 1, To: 2, Term: 3,
				Snapshot: &Snapshot{Index: 2, Term: 1, ConfState: ConfState{Voters: ids(3)}}}))
			resps := msgsOfType(drain(n), MsgAppResp)
			require.Len(t, resps, 1)
			assert.False(t, resps[0].Reject)
			assert.Equal(t, uint64(2), resps[0].Index, "only the snapshot is known to match the leader")
			assert.Equal(t, uint64(2), n.log.committed)
			assert.Equal(t, []uint64{1, 1, 2, 2}, logTerms(n), "the log is kept")
		})
	}
}

// Restart: Config.Applied may equal the persisted commit index (the
// application applied everything it was handed), but not exceed it.
// go.etcd.io/raft raft.go newRaft: raftLog.appliedTo(c.Applied), which
// refuses only applied > committed.
func TestConfigAppliedUpToCommit(t *testing.T) {
	ps := PersistentState{HardState: HardState{Term: 1, Commit: 2}, Entries: logOfTerms(1, 1, 1)}
	n, err := New(Config{ID: 1, Peers: ids(3), Rand: fixedRand(0), Applied: 2}, ps)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), n.log.applied)
	assert.False(t, n.HasReady(), "nothing left to apply")
	_, err = New(Config{ID: 1, Peers: ids(3), Rand: fixedRand(0), Applied: 3}, ps)
	assert.Error(t, err)
}

// Step refuses a message type outside the protocol, the first one past the
// last known type included, instead of dropping it silently.
func TestStepRefusesUnknownMessageType(t *testing.T) {
	n := newTestNode(t, 1, ids(3), PersistentState{}, nil)
	for _, typ := range []MessageType{numMessageTypes, numMessageTypes + 1, 255} {
		assert.Error(t, n.Step(Message{Type: typ, From: 2, To: 1, Term: 1}), "type %d", typ)
	}
	assert.NoError(t, n.Step(Message{Type: MsgHeartbeat, From: 2, To: 1, Term: 1}))
}
