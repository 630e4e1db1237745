package raft

// Ready is one batch of effects the core asks its driver to carry out, in
// this order: persist Snapshot, Entries and HardState durably; then send
// Messages; then restore Snapshot into the state machine and apply
// CommittedEntries; then call Advance. See the package doc's persistence
// contract.
type Ready struct {
	// HardState is the state to persist; HardStateChanged says whether it
	// differs from the last persisted one.
	HardState        HardState
	HardStateChanged bool
	// Snapshot, if non-nil, is a snapshot received from the leader. It
	// replaces the whole persisted log and the state machine.
	Snapshot *Snapshot
	// Entries are to be appended to the persisted log, replacing any
	// persisted entries at the same or later indexes.
	Entries []Entry
	// Messages are to be sent once the above is durable.
	Messages []Message
	// CommittedEntries are to be applied, in order, once Entries are durable.
	CommittedEntries []Entry
	// ReadStates answer ReadIndex requests.
	ReadStates []ReadState
}

// Propose asks the cluster to append data to the log. On the leader it is
// appended at once; a follower forwards it to its leader. It fails with
// ErrProposalDropped when there is no leader to take it or a leadership
// transfer is in progress. Success does not mean the entry will commit: the
// application learns that from CommittedEntries.
func (n *Node) Propose(data []byte) error {
	return n.stepMsg(&Message{Type: MsgProp, From: n.id, Entries: []Entry{{Data: data}}})
}

// HasReady reports whether Ready has anything to hand out.
func (n *Node) HasReady() bool {
	return len(n.msgs) > 0 ||
		len(n.readStates) > 0 ||
		n.hardState() != n.prevHS ||
		n.log.pendingSnap != nil ||
		n.log.stabled < n.log.lastIndex() ||
		n.log.hasNextCommitted()
}

// Ready returns the pending effects. It hands out (and forgets) the queued
// messages and read states; everything else is retained until Advance
// confirms it. Call Advance before calling Ready again.
func (n *Node) Ready() Ready {
	hs := n.hardState()
	rd := Ready{
		HardState:        hs,
		HardStateChanged: hs != n.prevHS,
		Snapshot:         n.log.pendingSnap,
		Entries:          n.log.unstable(),
		Messages:         n.msgs,
		CommittedEntries: n.log.nextCommitted(),
		ReadStates:       n.readStates,
	}
	n.msgs = nil
	n.readStates = nil
	if k := len(rd.CommittedEntries); k > 0 {
		n.log.applying = rd.CommittedEntries[k-1].Index
		for i := range rd.CommittedEntries {
			if e := &rd.CommittedEntries[i]; e.Type == EntryConfChange {
				n.confQueue = append(n.confQueue, e.Index)
			}
		}
	}
	return rd
}

// Advance tells the node that rd has been carried out: its HardState,
// Snapshot and Entries are durable, its messages sent and its committed
// entries applied. The leader may then count its own log towards commitment.
func (n *Node) Advance(rd Ready) {
	l := &n.log
	n.prevHS = rd.HardState
	if rd.Snapshot != nil {
		if l.pendingSnap == rd.Snapshot {
			l.pendingSnap = nil
		}
		l.applied = max(l.applied, rd.Snapshot.Index)
	}
	if k := len(rd.Entries); k > 0 {
		e := &rd.Entries[k-1]
		l.stableTo(e.Index, e.Term)
	}
	if k := len(rd.CommittedEntries); k > 0 {
		l.applied = max(l.applied, rd.CommittedEntries[k-1].Index)
	}
	if n.role == Leader {
		self := &n.prs[n.self]
		if l.stabled > self.match {
			self.match = l.stabled
			if n.maybeCommit() {
				n.bcastAppend()
			}
		}
	}
}
