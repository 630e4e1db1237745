package raft

import (
	"math/bits"

	"github.com/kubesim/kubesim/ablation"
)

// readRequest is one ReadIndex request on the leader (thesis §6.4): the
// commit index when it arrived, who asked, and which peers have since
// acknowledged a heartbeat of its round.
type readRequest struct {
	seq   uint64 // heartbeat round that confirms it; 0 while pending
	index uint64
	from  uint64
	ctx   []byte
	acks  uint64 // bitset over peer positions
}

// ReadIndex requests a linearizable read. The answer arrives as a ReadState
// with ctx in a later Ready, once the leader has confirmed, by a heartbeat
// round acknowledged by a quorum, that it was still the leader when the
// request arrived. The application may then serve the read after applying up
// to ReadState.Index. Followers forward the request to their leader; without
// a known leader the request is dropped and the caller should retry.
func (n *Node) ReadIndex(ctx []byte) {
	_ = n.stepMsg(&Message{Type: MsgReadIndex, From: n.id, Context: ctx})
}

// handleReadIndex registers a read request on the leader. Until the leader
// has committed an entry of its own term it does not know the latest commit
// index, so the request waits for that (thesis §6.4 step 1).
func (n *Node) handleReadIndex(from uint64, ctx []byte) {
	req := readRequest{from: from, ctx: ctx}
	if !n.committedInTerm() {
		n.pendingReads = append(n.pendingReads, req)
		return
	}
	n.startRead(req)
}

// leaseRead answers a read at once when the raft-lease-reads ablation is
// on, as raft's ReadOnlyLeaseBased does, and reports whether it did.
func (n *Node) leaseRead(req *readRequest) bool {
	if !n.cfg.Ablations.Has(ablation.LeaseReads) {
		return false
	}
	req.index = n.log.committed
	n.respondRead(req) // ablation: no heartbeat round confirms the leadership
	return true
}

func (n *Node) committedInTerm() bool {
	t, ok := n.log.term(n.log.committed)
	return ok && t == n.term
}

// startRead records the read index and starts a heartbeat round for it.
func (n *Node) startRead(req readRequest) {
	if n.leaseRead(&req) {
		return
	}
	req.index = n.log.committed
	if n.voters == 1 {
		n.respondRead(&req)
		return
	}
	n.readSeq++
	req.seq = n.readSeq
	req.acks = 1 << uint(n.self)
	n.reads = append(n.reads, req)
	n.bcastHeartbeat(req.seq)
}

// releasePendingReads starts the reads that waited for a current-term commit.
func (n *Node) releasePendingReads() {
	if len(n.pendingReads) == 0 || !n.committedInTerm() {
		return
	}
	for _, req := range n.pendingReads {
		n.startRead(req)
	}
	clear(n.pendingReads)
	n.pendingReads = n.pendingReads[:0]
}

// lastReadSeq is the round the next heartbeat confirms: the newest pending
// read, so that lost heartbeats are retried by the periodic ones.
func (n *Node) lastReadSeq() uint64 {
	if len(n.reads) == 0 {
		return 0
	}
	return n.reads[len(n.reads)-1].seq
}

// ackRead counts peer i's acknowledgement of round seq. Once a quorum has
// acknowledged it, that request and every earlier one are answered: the
// round started after all of them arrived.
func (n *Node) ackRead(i int, seq uint64) {
	k := len(n.reads) - 1
	for k >= 0 && n.reads[k].seq != seq {
		k--
	}
	if k < 0 {
		return
	}
	n.reads[k].acks |= 1 << uint(i)
	if n.readConfirmed(k) {
		n.finishReadsTo(k)
	}
}

// readConfirmed reports whether a quorum of voters acknowledged read k's
// round; learners' acknowledgements never count (thesis §4.2.1).
func (n *Node) readConfirmed(k int) bool {
	return bits.OnesCount64(n.reads[k].acks&n.voterMask) >= n.quorum()
}

// finishReadsTo answers read k and every earlier one.
func (n *Node) finishReadsTo(k int) {
	for j := 0; j <= k; j++ {
		n.respondRead(&n.reads[j])
	}
	rest := copy(n.reads, n.reads[k+1:])
	clear(n.reads[rest:])
	n.reads = n.reads[:rest]
}

// maybeFinishReads answers the reads that a new configuration's quorum has
// already confirmed.
func (n *Node) maybeFinishReads() {
	for k := len(n.reads) - 1; k >= 0; k-- {
		if n.readConfirmed(k) {
			n.finishReadsTo(k)
			return
		}
	}
}

// respondRead delivers a confirmed read to the local application or to the
// follower that forwarded it.
func (n *Node) respondRead(req *readRequest) {
	if req.from == n.id {
		n.readStates = append(n.readStates, ReadState{Index: req.index, Ctx: req.ctx})
		return
	}
	n.send(Message{To: req.from, Type: MsgReadIndexResp, Index: req.index, Context: req.ctx})
}
