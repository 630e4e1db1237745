package raft

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The leader's per-follower flow control (paper §5.3 nextIndex/matchIndex,
// thesis §10.2.1 pipelining) follows go.etcd.io/raft tracker/progress.go
// and tracker/inflights.go; these tests mirror its tracker tests.

// BecomeProbe: after a snapshot the leader probes from just past the
// snapshot it sent (the follower has it if the attempt finished), never
// from before; otherwise from match+1. go.etcd.io/raft tracker/progress.go,
// func (pr *Progress) BecomeProbe: Next = max(Match+1, PendingSnapshot+1)
// from StateSnapshot (TestProgressBecomeProbe).
func TestProgressBecomeProbe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pr    progress
		wnext uint64
	}{
		{"from replicate", progress{state: stateReplicate, match: 1, next: 5}, 2},
		{"from probe", progress{state: stateProbe, match: 1, next: 3, probeSent: true}, 2},
		{"snapshot sent beyond match", progress{state: stateSnapshot, match: 1, next: 5, pendingSnapshot: 10}, 11},
		{"snapshot behind match", progress{state: stateSnapshot, match: 12, next: 13, pendingSnapshot: 10}, 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := tc.pr
			pr.ins = newInflights(4)
			pr.ins.add(pr.next)
			match := pr.match
			pr.becomeProbe()
			assert.Equal(t, stateProbe, pr.state)
			assert.Equal(t, match, pr.match)
			assert.Equal(t, tc.wnext, pr.next)
			assert.False(t, pr.probeSent)
			assert.Zero(t, pr.pendingSnapshot)
			assert.Zero(t, pr.ins.count)
		})
	}
}

// MaybeUpdate: an acknowledgement up to n raises match (never lowers it),
// raises next to at least n+1, and reports whether it was news; an old
// acknowledgement leaves a paused probe paused. go.etcd.io/raft
// tracker/progress.go, func (pr *Progress) MaybeUpdate (TestProgressUpdate).
func TestProgressMaybeUpdate(t *testing.T) {
	const prevM, prevN = 3, 5
	for _, tc := range []struct {
		update, wmatch, wnext uint64
		ok                    bool
	}{
		{prevM - 1, prevM, prevN, false}, // do not decrease match or next
		{prevM, prevM, prevN, false},     // a repeated ack is no news
		{prevM + 1, prevM + 1, prevN, true},
		{prevM + 2, prevM + 2, prevN + 1, true}, // next follows the ack
		{prevM + 7, prevM + 7, prevM + 8, true},
	} {
		t.Run(fmt.Sprint(tc.update), func(t *testing.T) {
			pr := progress{state: stateProbe, match: prevM, next: prevN, probeSent: true}
			assert.Equal(t, tc.ok, pr.maybeUpdate(tc.update))
			assert.Equal(t, tc.wmatch, pr.match)
			assert.Equal(t, tc.wnext, pr.next)
			assert.Equal(t, tc.ok, !pr.probeSent, "only news unpauses a probe")
		})
	}
}

// MaybeDecrTo: in replicate state a rejection at or below match is stale
// (its MsgApp was overtaken by later acknowledged ones) and ignored; a
// genuine one rewinds next to match+1. In probe state only the rejection of
// the MsgApp at next-1 counts, and next drops to the hint+1 (not below
// match+1). go.etcd.io/raft tracker/progress.go, func (pr *Progress)
// MaybeDecrTo (TestProgressMaybeDecr).
func TestProgressMaybeDecrTo(t *testing.T) {
	for _, tc := range []struct {
		state          progressState
		match, next    uint64
		rejected, hint uint64
		ok             bool
		wnext          uint64
	}{
		{stateReplicate, 5, 10, 5, 5, false, 10}, // rejected == match: stale
		{stateReplicate, 5, 10, 4, 4, false, 10}, // rejected < match: stale
		{stateReplicate, 5, 10, 9, 9, true, 6},   // genuine: back to match+1
		{stateReplicate, 5, 10, 6, 2, true, 6},
		{stateProbe, 0, 10, 5, 5, false, 10}, // not the probe in flight
		{stateProbe, 0, 10, 9, 9, true, 9},
		{stateProbe, 0, 10, 9, 2, true, 3}, // follow the hint
		{stateProbe, 0, 10, 9, 0, true, 1},
		{stateProbe, 4, 10, 9, 1, true, 5}, // never below match+1
	} {
		t.Run(fmt.Sprintf("%v/m%d/n%d/rej%d/hint%d", tc.state, tc.match, tc.next, tc.rejected, tc.hint), func(t *testing.T) {
			pr := progress{state: tc.state, match: tc.match, next: tc.next, probeSent: true}
			assert.Equal(t, tc.ok, pr.maybeDecrTo(tc.rejected, tc.hint))
			assert.Equal(t, tc.match, pr.match)
			assert.Equal(t, tc.wnext, pr.next)
			if tc.state == stateProbe {
				assert.Equal(t, !tc.ok, pr.probeSent, "a genuine rejection unpauses the probe")
			}
		})
	}
}

// Inflights: freeing up to an index releases every MsgApp whose last entry
// is at or below it, across the ring's wrap-around, and nothing above it.
// go.etcd.io/raft tracker/inflights.go, func (in *Inflights) FreeLE
// (TestInflightFreeTo: FreeLE(4) frees 0..4).
func TestInflightsFreeLE(t *testing.T) {
	in := newInflights(10)
	for i := uint64(0); i < 10; i++ {
		in.add(i)
	}
	require.True(t, in.full())
	in.freeLE(0)
	assert.Equal(t, 1, in.start)
	assert.Equal(t, 9, in.count)
	in.freeLE(4)
	assert.Equal(t, 5, in.start)
	assert.Equal(t, 5, in.count)
	assert.False(t, in.full())
	in.freeLE(4) // nothing left at or below 4
	assert.Equal(t, 5, in.count)
	for i := uint64(10); i < 15; i++ {
		in.add(i) // wraps around
	}
	require.True(t, in.full())
	in.freeLE(12)
	assert.Equal(t, 3, in.start)
	assert.Equal(t, 2, in.count)
	assert.Equal(t, uint64(13), in.buf[in.start])
	in.freeLE(14)
	assert.Equal(t, 0, in.count)
}

// FreeFirst releases exactly the oldest MsgApp in flight, and is harmless
// on an empty window. go.etcd.io/raft (v3.5) tracker/inflights.go, func
// (in *Inflights) FreeFirstOne.
func TestInflightsFreeFirst(t *testing.T) {
	in := newInflights(3)
	in.freeFirst()
	assert.Equal(t, 0, in.count)
	for _, last := range []uint64{4, 7, 9} {
		in.add(last)
	}
	require.True(t, in.full())
	in.freeFirst()
	assert.False(t, in.full())
	assert.Equal(t, 2, in.count)
	assert.Equal(t, uint64(7), in.buf[in.start])
}

// appsTo returns the MsgApps to id among ms that carry entries.
func appsTo(ms []Message, id uint64) []Message {
	var out []Message
	for _, m := range ms {
		if m.Type == MsgApp && m.To == id && len(m.Entries) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// Paper §5.3 with flow control: the acknowledgement of a MsgApp frees its
// slot in the window at once, so a leader whose window was full sends the
// next waiting entries on that acknowledgement, without waiting for a
// heartbeat. go.etcd.io/raft raft.go, stepLeader case MsgAppResp:
// pr.Inflights.FreeLE(m.Index) then r.maybeSendAppend
// (raft_flow_control_test.go, TestMsgAppFlowControlMoveForward).
func TestFlowControlAckFreesWindow_5_3(t *testing.T) {
	nw := newNetwork(t, 2, 1, func(c *Config) {
		noPreVote(c)
		c.MaxInflightMsgs = 1
		c.MaxEntriesPerMsg = 1
	})
	nw.campaign(1)
	l := nw.node(1)
	require.Equal(t, stateReplicate, l.prs[1].state)
	nw.hold = func(m Message) bool { return m.Type == MsgAppResp }
	require.NoError(t, l.Propose([]byte("a")))
	require.NoError(t, l.Propose([]byte("b")))
	nw.process(1)
	sent := appsTo(nw.msgs, 2)
	require.Len(t, sent, 1, "a window of one")
	require.Equal(t, []byte("a"), sent[0].Entries[0].Data)
	nw.stabilize()
	require.Len(t, nw.held, 1)
	ack := nw.held[0]
	nw.held = nil

	require.NoError(t, l.Step(ack))
	nw.process(1)
	next := appsTo(nw.msgs, 2)
	require.Len(t, next, 1, "the ack frees the window")
	assert.Equal(t, []byte("b"), next[0].Entries[0].Data)
}

// Paper §5.3 with thesis §3.5 (messages may be lost): when every MsgApp of
// a full window was lost, a heartbeat answer from the follower frees the
// oldest slot so the leader sends it an append at once; the follower
// rejects it and replication resumes from its log, well before stall
// detection (an election timeout) would. go.etcd.io/raft (v3.5) raft.go,
// stepLeader case MsgHeartbeatResp: if pr.State == StateReplicate &&
// pr.Inflights.Full() { pr.Inflights.FreeFirstOne() }; then sendAppend
// (TestMsgAppFlowControlRecvHeartbeat).
func TestFlowControlHeartbeatUnblocksFullWindow_5_3(t *testing.T) {
	nw := newNetwork(t, 2, 1, func(c *Config) {
		noPreVote(c)
		c.MaxInflightMsgs = 2
		c.MaxEntriesPerMsg = 1
	})
	nw.campaign(1)
	l := nw.node(1)
	nw.drop = func(m Message) bool { return m.Type == MsgApp && m.To == 2 }
	for _, d := range []string{"a", "b", "c"} {
		require.NoError(t, nw.propose(1, d))
	}
	require.True(t, l.prs[1].ins.full(), "both appends in flight (and lost)")
	nw.drop = nil

	require.NoError(t, l.Step(Message{Type: MsgBeat}))
	nw.stabilize()
	assert.Equal(t, l.log.lastIndex(), nw.node(2).log.lastIndex(), "caught up after one heartbeat round")
	assert.Equal(t, l.log.lastIndex(), l.log.committed)
	require.NoError(t, nw.check())
}
