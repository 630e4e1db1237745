package raft

// Status is a read-only summary of a node, for tests, checkers and traces.
type Status struct {
	ID        uint64
	Term      uint64
	Vote      uint64
	Role      Role
	Lead      uint64
	Commit    uint64
	Applied   uint64
	LastIndex uint64
	// SnapshotIndex is the index of the latest snapshot (0 if none).
	SnapshotIndex uint64
	// LogHash is the FNV-1a hash of (index, term, data) of every entry up
	// to Commit; equal commits must give equal hashes across nodes.
	LogHash uint64
}

// Status returns the node's current status.
func (n *Node) Status() Status {
	return Status{
		ID:            n.id,
		Term:          n.term,
		Vote:          n.vote,
		Role:          n.role,
		Lead:          n.lead,
		Commit:        n.log.committed,
		Applied:       n.log.applied,
		LastIndex:     n.log.lastIndex(),
		SnapshotIndex: n.log.snapIndex,
		LogHash:       n.log.hash,
	}
}

// Term returns the node's current term.
func (n *Node) Term() uint64 { return n.term }

// Role returns the node's current role.
func (n *Node) Role() Role { return n.role }

// Lead returns the leader the node currently follows (None if unknown).
func (n *Node) Lead() uint64 { return n.lead }
