package raft

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compactAll snapshots every live node at its applied index.
func (nw *network) compactAll() {
	for _, p := range nw.peers {
		if p.node == nil || p.node.log.applied <= p.node.log.snapIndex {
			continue
		}
		idx := p.node.log.applied
		if err := p.node.Compact(idx, []byte(fmt.Sprintf("state@%d", idx))); err != nil {
			nw.t.Fatalf("Compact(%d): %v", idx, err)
		}
		p.store.compact(p.node.Snapshot())
	}
}

// §7: once the leader has discarded the entries a lagging follower needs,
// it sends its snapshot (InstallSnapshot); the follower replaces its log and
// then catches up normally. The log hash carries across the snapshot.
func TestLaggingFollowerGetsSnapshot_7(t *testing.T) {
	nw := newNetwork(t, 3, 1, nil)
	nw.campaign(1)
	nw.isolate(3)
	for i := 0; i < 10; i++ {
		require.NoError(t, nw.propose(1, fmt.Sprintf("v%d", i)))
	}
	nw.compactAll()
	require.Equal(t, uint64(11), nw.node(1).log.snapIndex)
	snaps := 0
	nw.heal()
	nw.hold = func(m Message) bool {
		if m.Type == MsgSnap {
			snaps++
		}
		return false
	}
	require.NoError(t, nw.propose(1, "after"))
	nw.tick(2)
	assert.Equal(t, 1, snaps)
	f := nw.node(3)
	assert.Equal(t, uint64(11), f.log.snapIndex)
	assert.Equal(t, uint64(12), f.log.committed)
	assert.Equal(t, uint64(12), nw.peer(3).applied)
	assert.Equal(t, nw.node(1).Status().LogHash, f.Status().LogHash)
	assert.Equal(t, "state@11", string(nw.peer(3).store.snap.Data), "snapshot persisted")
	require.NoError(t, nw.check())
}

// §7 with §5 persistence: a node restarts from its snapshot plus the log
// tail, with the same term, commit and log hash, and keeps replicating.
func TestRestartFromSnapshotAndTail_7(t *testing.T) {
	nw := newNetwork(t, 3, 1, nil)
	nw.campaign(1)
	for i := 0; i < 5; i++ {
		require.NoError(t, nw.propose(1, fmt.Sprintf("v%d", i)))
	}
	nw.compactAll()
	for i := 5; i < 8; i++ {
		require.NoError(t, nw.propose(1, fmt.Sprintf("v%d", i)))
	}
	before := nw.node(2).Status()
	nw.crash(2)
	nw.restart(2)
	after := nw.node(2).Status()
	assert.Equal(t, before.Term, after.Term)
	assert.Equal(t, before.Commit, after.Commit)
	assert.Equal(t, before.LastIndex, after.LastIndex)
	assert.Equal(t, uint64(6), after.SnapshotIndex)
	assert.Equal(t, before.LogHash, after.LogHash)
	assert.Equal(t, uint64(6), after.Applied, "the state machine restarts from the snapshot")

	// The restarted node re-applies the tail after its snapshot.
	nw.peer(2).applied = 6
	nw.process(2)
	assert.Equal(t, uint64(9), nw.peer(2).applied)

	// Restart every node, including the leader: the cluster carries on.
	for _, id := range ids(3) {
		nw.crash(id)
		nw.restart(id)
	}
	for i := 0; i < 40 && !nw.converged(); i++ {
		nw.tick(1)
	}
	require.True(t, nw.converged(), nw.describe())
	lead := nw.leader()
	require.NoError(t, nw.propose(lead, "more"))
	assert.Equal(t, nw.node(lead).Status().LogHash, nw.node(2).Status().LogHash)
	require.NoError(t, nw.check())
}

// §7: Compact only accepts applied, not yet compacted indexes.
func TestCompactBounds_7(t *testing.T) {
	nw := newNetwork(t, 1, 1, nil)
	nw.campaign(1)
	require.NoError(t, nw.propose(1, "a"))
	n := nw.node(1)
	assert.ErrorIs(t, n.Compact(5, nil), ErrUnavailable)
	require.NoError(t, n.Compact(2, nil))
	assert.ErrorIs(t, n.Compact(2, nil), ErrCompacted)
	assert.ErrorIs(t, n.Compact(1, nil), ErrCompacted)
}

// The log hash is FNV-1a over (index, term, data) of each committed entry
// and agrees with a direct computation.
func TestLogHashIsIncrementalFNV(t *testing.T) {
	nw := newNetwork(t, 1, 1, nil)
	nw.campaign(1)
	require.NoError(t, nw.propose(1, "hello"))
	h := fnvOffset
	for _, e := range []Entry{{Index: 1, Term: 1}, {Index: 2, Term: 1, Data: []byte("hello")}} {
		var buf []byte
		for _, v := range []uint64{e.Index, e.Term} {
			for k := 0; k < 8; k++ {
				buf = append(buf, byte(v>>(8*k)))
			}
		}
		buf = append(buf, e.Data...)
		for _, b := range buf {
			h ^= uint64(b)
			h *= fnvPrime
		}
	}
	assert.Equal(t, h, nw.node(1).Status().LogHash)
}
