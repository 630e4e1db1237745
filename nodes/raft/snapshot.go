package raft

import "fmt"

// Compact records that the application took a snapshot of its state at
// applied index index, with state machine bytes data, and discards the log up
// to index (paper §7). The application must have made the snapshot durable
// itself; it may then drop its persisted entries up to index. Followers that
// need discarded entries are sent the snapshot instead.
func (n *Node) Compact(index uint64, data []byte) error {
	l := &n.log
	switch {
	case index <= l.snapIndex:
		return ErrCompacted
	case index > l.applied:
		return fmt.Errorf("%w: compact index %d beyond applied %d", ErrUnavailable, index, l.applied)
	}
	t, _ := l.term(index)
	s := &Snapshot{
		Index:     index,
		Term:      t,
		ConfState: n.confStateAt(index).Clone(),
		Data:      data,
		LogHash:   l.hashAt(index),
	}
	l.compact(s)
	n.wantSnapshot = false
	return nil
}

// WantsSnapshot reports whether the leader must catch up a member whose
// entries are compacted, but its latest snapshot predates that member (see
// sendSnapshot). The application should then Compact at its applied index:
// the new snapshot carries the configuration that includes the member.
func (n *Node) WantsSnapshot() bool { return n.wantSnapshot }

// Snapshot returns the node's latest snapshot (taken by Compact or received
// from a leader), or nil. The member wiring persists it as its snapshot file.
func (n *Node) Snapshot() *Snapshot { return n.log.snapshot }

// sendSnapshot sends the latest snapshot to the follower at position i,
// whose next entries are compacted. It reports whether a message was sent.
func (n *Node) sendSnapshot(i int) bool {
	s := n.log.snapshot
	if s == nil {
		panic("raft: log compacted without a snapshot")
	}
	if !s.ConfState.Contains(n.peers[i]) {
		// The member was added after the snapshot, which it would
		// refuse. etcd never sends raft's stored snapshot: it sends one
		// of its current applied state and configuration (etcdserver
		// createMergedSnapshotMessage). Ask the application for a newer
		// snapshot (WantsSnapshot) and probe again meanwhile.
		n.wantSnapshot = true
		return false
	}
	n.send(Message{To: n.peers[i], Type: MsgSnap, Snapshot: s})
	n.prs[i].becomeSnapshot(s.Index)
	return true
}

// handleSnapshot is the follower side of InstallSnapshot (paper §7). A
// snapshot that the log already covers only advances the commit index,
// and is answered with it: the entries after it may be an older term's,
// so the leader must not count them (go.etcd.io/raft's restore returns
// false and handleSnapshot answers with the commit index). Otherwise the
// snapshot replaces the whole log. Either way the answer is a MsgAppResp
// so the leader resumes normal replication.
func (n *Node) handleSnapshot(m *Message) {
	s := m.Snapshot
	l := &n.log
	switch {
	case s == nil || s.Index <= l.committed || !s.ConfState.Contains(n.id):
		// A snapshot whose configuration lacks us is refused too
		// (go.etcd.io/raft/v3 raft.restore: "attempted to restore
		// snapshot but it is not in the ConfState").
		n.send(Message{To: m.From, Type: MsgAppResp, Index: l.committed})
	case l.matchTerm(s.Index, s.Term):
		l.commitTo(s.Index)
		n.send(Message{To: m.From, Type: MsgAppResp, Index: l.committed})
	default:
		l.restore(s)
		// The snapshot's configuration takes effect at once; conf changes
		// handed out before it are stale (see ApplyConfChange).
		cs := s.ConfState.Clone()
		n.confHistory = []confAt{{index: s.Index, conf: cs}}
		n.switchToConfig(cs)
		n.send(Message{To: m.From, Type: MsgAppResp, Index: l.lastIndex()})
	}
}
