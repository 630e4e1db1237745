package raft

// TransferLeader asks the leader to hand leadership to the voter to (thesis
// §3.10). On a follower the request is forwarded to the known leader. The
// leader stops accepting proposals, brings the transferee's log up to date,
// then sends it MsgTimeoutNow so it campaigns at once; the transfer is
// abandoned if it has not completed within an election timeout.
func (n *Node) TransferLeader(to uint64) {
	_ = n.stepMsg(&Message{Type: MsgTransferLeader, From: n.id, Index: to})
}

// handleTransferLeader starts a transfer to the voter to.
func (n *Node) handleTransferLeader(to uint64) {
	i := n.peerIndex(to)
	if i < 0 || !n.isVoterAt(i) || i == n.self || n.leadTransferee == to {
		return // not a voter, ourselves, or already in progress
	}
	n.leadTransferee = to
	n.electionElapsed = 0 // the transfer must finish within one timeout
	if n.prs[i].match == n.log.lastIndex() {
		n.send(Message{To: to, Type: MsgTimeoutNow})
		return
	}
	n.sendAppend(i, true)
}
