package raft

import (
	"slices"

	"github.com/kubesim/kubesim/ablation"
)

// appendEntries appends new entries to the leader's log in its term.
func (n *Node) appendEntries(ents ...Entry) {
	li := n.log.lastIndex()
	for i := range ents {
		ents[i].Term = n.term
		ents[i].Index = li + 1 + uint64(i)
	}
	n.log.append(ents...)
	// The leader's own log counts towards a quorum only once durable, so
	// its progress is advanced in Advance, not here.
}

// sendAppend sends the next MsgApp to the follower at position i, or a
// snapshot if the entries it needs are compacted. It sends nothing when the
// follower is paused by flow control, or when there is nothing to send and
// sendIfEmpty is false. It reports whether a message was sent.
func (n *Node) sendAppend(i int, sendIfEmpty bool) bool {
	pr := &n.prs[i]
	if pr.paused() {
		return false
	}
	last := n.log.lastIndex()
	if pr.next > last+1 {
		// Only an ablation lets a follower acknowledge entries the
		// leader lacks; resynchronise from our own log.
		pr.next = last + 1
	}
	prevIndex := pr.next - 1
	prevTerm, ok := n.log.term(prevIndex)
	if !ok {
		return n.sendSnapshot(i)
	}
	if prevIndex == 0 && n.log.snapIndex == 0 && !slices.Contains(n.cfg.Peers, n.peers[i]) {
		// A member that joined later cannot rebuild the configuration
		// from the log: kubesim's bootstrap configuration is Config.Peers,
		// not conf change entries at the head of the log as etcd's
		// StartNode writes them. It is caught up by a snapshot, which
		// carries the configuration (see WantsSnapshot).
		n.wantSnapshot = true
		return false
	}
	hi := min(last+1, pr.next+uint64(n.cfg.MaxEntriesPerMsg))
	ents := n.log.slice(pr.next, hi)
	if len(ents) == 0 && !sendIfEmpty {
		return false
	}
	n.send(Message{
		To:      n.peers[i],
		Type:    MsgApp,
		Index:   prevIndex,
		LogTerm: prevTerm,
		Entries: ents,
		Commit:  n.log.committed,
	})
	pr.sentCommit = n.log.committed
	switch pr.state {
	case stateReplicate:
		if len(ents) > 0 {
			lastSent := ents[len(ents)-1].Index
			pr.next = lastSent + 1
			pr.ins.add(lastSent)
		}
	case stateProbe:
		pr.probeSent = true
	}
	return true
}

// bcastAppend sends a MsgApp (possibly empty, to carry the commit index) to
// every follower that flow control allows.
func (n *Node) bcastAppend() {
	for i := range n.peers {
		if i != n.self {
			n.sendAppend(i, true)
		}
	}
}

// bcastHeartbeat sends a heartbeat to every follower. seq, if non-zero,
// identifies the ReadIndex round the heartbeat confirms.
func (n *Node) bcastHeartbeat(seq uint64) {
	for i, p := range n.peers {
		if i == n.self {
			continue
		}
		// Never tell a follower to commit beyond what it is known to hold.
		commit := min(n.prs[i].match, n.log.committed)
		n.send(Message{To: p, Type: MsgHeartbeat, Commit: commit, Index: seq})
	}
}

// maybeCommit advances the commit index to the highest index replicated on a
// quorum, provided that entry is from the current term (paper §5.4.2; the
// CommitOldTerm ablation drops that condition). It reports whether the
// commit index moved.
func (n *Node) maybeCommit() bool {
	var buf [maxPeers]uint64
	matches := buf[:0]
	for i := range n.prs {
		// Learners never count (thesis §4.2.1; the ablation counts them).
		if n.isVoterAt(i) || n.cfg.Ablations.Has(ablation.LearnerCountsInQuorum) {
			matches = append(matches, n.prs[i].match)
		}
	}
	// Insertion sort, descending: clusters are tiny.
	for i := 1; i < len(matches); i++ {
		for j := i; j > 0 && matches[j] > matches[j-1]; j-- {
			matches[j], matches[j-1] = matches[j-1], matches[j]
		}
	}
	mci := matches[n.quorum()-1]
	if mci <= n.log.committed {
		return false
	}
	if !n.cfg.Ablations.Has(ablation.CommitOldTerm) {
		if t, ok := n.log.term(mci); !ok || t != n.term {
			return false
		}
	}
	n.log.commitTo(mci)
	n.releasePendingReads()
	return true
}

// tickHeartbeat is the leader's clock: heartbeats every HeartbeatTick, and
// every election timeout a CheckQuorum round, a leadership-transfer timeout
// and stall detection for followers whose appends went unanswered.
func (n *Node) tickHeartbeat() {
	n.heartbeatElapsed++
	n.electionElapsed++
	if n.electionElapsed >= n.cfg.ElectionTick {
		n.electionElapsed = 0
		if n.cfg.CheckQuorum && !n.checkQuorumActive() {
			n.becomeFollower(n.term, None)
			return
		}
		n.leadTransferee = None // the transfer did not finish in time
	}
	for i := range n.prs {
		if i == n.self {
			continue
		}
		pr := &n.prs[i]
		if pr.state == stateSnapshot || (pr.state == stateReplicate && pr.ins.count > 0) {
			pr.stallTicks++
			if pr.stallTicks >= n.cfg.ElectionTick {
				pr.becomeProbe()
			}
		}
	}
	if n.heartbeatElapsed >= n.cfg.HeartbeatTick {
		n.heartbeatElapsed = 0
		n.bcastHeartbeat(n.lastReadSeq())
	}
}

// checkQuorumActive reports whether a quorum (counting the leader) was heard
// from since the last round, and starts a new round (thesis §6.2).
func (n *Node) checkQuorumActive() bool {
	active := 0
	for i := range n.prs {
		if n.isVoterAt(i) && (i == n.self || n.prs[i].recentActive) {
			active++
		}
		if i != n.self {
			n.prs[i].recentActive = false
		}
	}
	return active >= n.quorum()
}

// stepLeader is the leader's message handler.
func (n *Node) stepLeader(m *Message) error {
	switch m.Type {
	case MsgBeat:
		n.bcastHeartbeat(n.lastReadSeq())
		return nil
	case MsgProp:
		if len(m.Entries) == 0 {
			return nil
		}
		if n.leadTransferee != None {
			return ErrProposalDropped
		}
		// Copy the forwarded entries: their slice belongs to the sender.
		for _, e := range m.Entries {
			if e.Type == EntryConfChange {
				e = n.maybeAcceptConfChange(e)
			} else {
				e.Type = EntryNormal
			}
			n.appendEntries(Entry{Type: e.Type, Data: e.Data})
		}
		n.bcastAppend()
		return nil
	case MsgReadIndex:
		n.handleReadIndex(m.From, m.Context)
		return nil
	case MsgTransferLeader:
		n.handleTransferLeader(m.Index)
		return nil
	}

	i := n.peerIndex(m.From)
	if i < 0 || i == n.self {
		return nil // not (or no longer) a member: no progress to update
	}
	pr := &n.prs[i]
	pr.recentActive = true
	switch m.Type {
	case MsgAppResp:
		pr.stallTicks = 0
		n.handleAppendResp(i, m)
	case MsgHeartbeatResp:
		n.handleHeartbeatResp(i, m)
	}
	return nil
}

// handleAppendResp processes a follower's answer to MsgApp or MsgSnap.
func (n *Node) handleAppendResp(i int, m *Message) {
	pr := &n.prs[i]
	if m.Reject {
		// Fast backtracking (paper §5.3): skip every entry of terms the
		// follower cannot match, using its (index, term) hint.
		next := m.RejectHint
		if m.LogTerm > 0 {
			next, _ = n.log.findConflictByTerm(m.RejectHint, m.LogTerm)
		}
		if pr.maybeDecrTo(m.Index, next) {
			if pr.state == stateReplicate {
				pr.becomeProbe()
			}
			n.sendAppend(i, true)
		}
		return
	}
	if !pr.maybeUpdate(m.Index) {
		return
	}
	switch pr.state {
	case stateProbe:
		pr.becomeReplicate()
	case stateSnapshot:
		if pr.match >= pr.pendingSnapshot {
			pr.becomeReplicate()
		}
	case stateReplicate:
		pr.ins.freeLE(m.Index)
	}
	if n.maybeCommit() {
		n.bcastAppend()
	}
	// Fill the window with whatever the follower still lacks, and make sure
	// it learns the latest commit index.
	for n.sendAppend(i, false) {
	}
	if pr.sentCommit < n.log.committed {
		n.sendAppend(i, true)
	}
	if m.From == n.leadTransferee && pr.match == n.log.lastIndex() {
		n.send(Message{To: m.From, Type: MsgTimeoutNow})
	}
}

// handleHeartbeatResp unpauses a lagging follower and, for ReadIndex,
// counts the acknowledgement of the heartbeat's round. A follower that is
// alive but behind gets an append even if optimistic replication thinks
// everything is in flight: if appends were lost it will reject it, and the
// leader falls back to probing.
func (n *Node) handleHeartbeatResp(i int, m *Message) {
	pr := &n.prs[i]
	pr.probeSent = false
	if pr.match < n.log.lastIndex() {
		if pr.state == stateReplicate && pr.ins.full() {
			pr.ins.freeFirst()
		}
		n.sendAppend(i, true)
	}
	if m.Index != 0 {
		n.ackRead(i, m.Index)
	}
}

// maybeAcceptConfChange returns the conf change entry e to append, or an
// empty entry in its place if an earlier conf change may still be
// unapplied: single-server changes are safe only one at a time (thesis
// §4.1), and go.etcd.io/raft/v3 stepLeader replaces a refused change by an
// empty normal entry (kubesim's EntryEmpty) so that the proposal's index is
// still used. The raft-conf-change-unguarded ablation accepts every change.
func (n *Node) maybeAcceptConfChange(e Entry) Entry {
	next := n.log.lastIndex() + 1
	if n.pendingConfIndex > n.log.applied && !n.cfg.Ablations.Has(ablation.ConfChangeUnguarded) {
		return Entry{Type: EntryEmpty}
	}
	n.pendingConfIndex = next
	return e
}

// stepFollower is the follower's message handler.
func (n *Node) stepFollower(m *Message) error {
	switch m.Type {
	case MsgProp:
		// Forward our own proposals to the leader; drop those forwarded
		// to us by a peer that thought we lead (one hop only, so that
		// replies and traces name the real sender).
		if n.lead == None || m.From != n.id {
			return ErrProposalDropped
		}
		m.To = n.lead
		n.send(*m)
	case MsgApp:
		n.electionElapsed = 0
		n.lead = m.From
		return n.handleAppend(m)
	case MsgHeartbeat:
		n.electionElapsed = 0
		n.lead = m.From
		n.handleHeartbeat(m)
	case MsgSnap:
		n.electionElapsed = 0
		n.lead = m.From
		n.handleSnapshot(m)
	case MsgTransferLeader:
		if n.lead != None && m.From == n.id && m.Index != n.lead {
			m.To = n.lead
			n.send(*m)
		}
	case MsgTimeoutNow:
		// The leader hands over: campaign now, past the lease.
		n.hup(transferContext)
	case MsgReadIndex:
		if n.lead != None && m.From == n.id {
			m.To = n.lead
			n.send(*m)
		}
	case MsgReadIndexResp:
		n.readStates = append(n.readStates, ReadState{Index: m.Index, Ctx: m.Context})
	}
	return nil
}

// handleAppend is the follower side of AppendEntries (paper §5.3): accept
// entries that follow a matching (Index, LogTerm), truncating conflicts, or
// reject with a hint for fast backtracking.
func (n *Node) handleAppend(m *Message) error {
	l := &n.log
	if m.Index < l.committed {
		n.send(Message{To: m.From, Type: MsgAppResp, Index: l.committed})
		return nil
	}
	if !l.matchTerm(m.Index, m.LogTerm) {
		hintIndex, hintTerm := l.findConflictByTerm(m.Index, m.LogTerm)
		n.send(Message{To: m.From, Type: MsgAppResp, Index: m.Index, Reject: true,
			RejectHint: hintIndex, LogTerm: hintTerm})
		return nil
	}
	lastNew := m.Index + uint64(len(m.Entries))
	if c := l.findConflict(m.Entries); c != 0 {
		if c <= l.committed {
			// Only possible with an ablation: refuse to rewrite
			// history, and leave the leader to keep retrying.
			return ErrCommittedConflict
		}
		l.truncateAndAppend(m.Entries[c-m.Index-1:])
	}
	l.commitTo(min(m.Commit, lastNew))
	n.send(Message{To: m.From, Type: MsgAppResp, Index: lastNew})
	return nil
}

// handleHeartbeat commits what the leader says is committed (bounded by what
// the leader knows we hold) and echoes the ReadIndex round.
func (n *Node) handleHeartbeat(m *Message) {
	n.log.commitTo(m.Commit)
	n.send(Message{To: m.From, Type: MsgHeartbeatResp, Index: m.Index})
}
