package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Thesis §6.4 step 3: a read is confirmed by a heartbeat round that a
// majority (the leader included) acknowledges, not every member: with one
// of three members down the leader still answers reads. Real source:
// go.etcd.io/raft raft.go, stepLeader case MsgHeartbeatResp, which releases
// reads once r.trk.Voters' quorum has acknowledged (read_only.go,
// maybeAdvance over CommittedIndex of the acks).
func TestReadIndexNeedsMajorityNotAll_6_4(t *testing.T) {
	for _, size := range []int{3, 5} {
		nw := newNetwork(t, size, 1, nil)
		nw.campaign(1)
		require.NoError(t, nw.propose(1, "a"))
		// Leave exactly a majority up: size/2 members are cut off.
		for id := uint64(size/2 + 2); id <= uint64(size); id++ {
			nw.isolate(id)
		}
		nw.node(1).ReadIndex([]byte("r"))
		nw.stabilize()
		assert.Equal(t, []ReadState{{Index: 2, Ctx: []byte("r")}}, nw.peer(1).reads, "size %d", size)
	}
}

// Thesis §6.4 step 3 (linearizability): an acknowledgement proves the
// follower still recognised the leader when it answered, so it only
// confirms reads that had arrived before the heartbeat it answers. A late
// answer to an earlier round must not confirm a later read: here the
// leader is deposed in between, a new leader commits a write, and the old
// leader, counting the stale acknowledgement, would answer the later read
// with an index that misses that write. Real source: go.etcd.io/raft
// read_only.go, recvAck keeps per voter the highest round acknowledged
// (max), and maybeAdvance releases a read only once a quorum acknowledged
// a round at or after its own.
func TestReadIndexIgnoresAcksOfEarlierRounds_6_4(t *testing.T) {
	nw := newNetwork(t, 3, 1, noPreVote) // no lease: the deposed leader keeps leading
	nw.campaign(1)
	require.NoError(t, nw.propose(1, "a"))
	old := nw.node(1)

	// Round for read "a": node 2's answer confirms it, node 3's is late.
	var late []Message
	nw.hold = func(m Message) bool { return m.Type == MsgHeartbeatResp && m.From == 3 }
	old.ReadIndex([]byte("a"))
	nw.stabilize()
	require.Equal(t, []ReadState{{Index: 2, Ctx: []byte("a")}}, nw.peer(1).reads)
	late, nw.held = nw.held, nil
	require.Len(t, late, 1)
	require.NotZero(t, late[0].Index, "the answer names the read round")

	// Node 1 is cut off; 2 and 3 elect 2, which commits a write.
	nw.heal()
	nw.isolate(1)
	nw.campaign(2)
	require.Equal(t, Leader, nw.node(2).role)
	require.NoError(t, nw.propose(2, "w"))
	written := nw.node(2).log.lastIndex()
	require.Equal(t, written, nw.node(2).log.committed)
	require.Equal(t, Leader, old.role, "the old leader does not know it was deposed")

	// A read issued after the write completed; the stale answer of the
	// earlier round arrives.
	old.ReadIndex([]byte("b"))
	nw.process(1)
	require.NoError(t, old.Step(late[0]))
	nw.process(1)
	reads := nw.peer(1).reads
	for _, rs := range reads {
		if string(rs.Ctx) == "b" {
			assert.GreaterOrEqual(t, rs.Index, written, "stale read: misses a write committed before the read began")
		}
	}
	assert.Len(t, reads, 1, "read b must wait for an acknowledgement of its own round")
}

// Thesis §6.4: a round's acknowledgement also confirms every read queued
// before it (they all arrived before its heartbeat), in order, and an
// acknowledgement of a round never seen is ignored.
func TestReadIndexAckConfirmsEarlierReads_6_4(t *testing.T) {
	nw := newNetwork(t, 3, 1, nil)
	nw.campaign(1)
	require.NoError(t, nw.propose(1, "a"))
	l := nw.node(1)
	nw.hold = func(m Message) bool { return m.Type == MsgHeartbeatResp }
	l.ReadIndex([]byte("x"))
	l.ReadIndex([]byte("y"))
	nw.stabilize()
	require.Empty(t, nw.peer(1).reads)
	held := nw.held
	nw.held = nil
	var round2 Message // node 2's answer to the later round: the last it sent
	for _, m := range held {
		if m.From == 2 {
			round2 = m
		}
	}
	require.NotZero(t, round2.Index)
	bogus := round2
	bogus.Index = 1 << 62 // no round the leader started
	require.NoError(t, l.Step(bogus))
	nw.process(1)
	assert.Empty(t, nw.peer(1).reads, "an unknown round confirms nothing")
	require.NoError(t, l.Step(round2))
	nw.process(1)
	assert.Equal(t, []ReadState{{Index: 2, Ctx: []byte("x")}, {Index: 2, Ctx: []byte("y")}}, nw.peer(1).reads)
}
