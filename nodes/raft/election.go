package raft

// tickElection is the clock of followers and candidates: after a randomized
// election timeout without hearing from a leader, campaign (paper §5.2).
// Learners and nodes outside the configuration never campaign (thesis
// §4.2.1; go.etcd.io/raft/v3 tickElection asks promotable).
func (n *Node) tickElection() {
	n.electionElapsed++
	if n.electionElapsed >= n.randomizedElectionTimeout && n.isVoter() {
		n.electionElapsed = 0
		n.hup(nil)
	}
}

// hup starts an election: a PreVote poll first when enabled, unless this is
// a leadership-transfer campaign (ctx == transferContext), which skips
// straight to a real election.
//
// A node with committed conf changes it has not applied yet does not
// campaign (go.etcd.io/raft/v3 hup, hasUnappliedConfChanges): its
// configuration may be more than one change behind the cluster's, so that
// its quorum need not intersect the one that committed those changes (a
// restarted node re-applies its committed entries before it may lead).
func (n *Node) hup(ctx []byte) {
	if n.role == Leader || !n.isVoter() || n.hasUnappliedConfChanges() {
		return
	}
	if n.cfg.PreVote && !isTransferCampaign(ctx) {
		n.campaign(true, nil)
	} else {
		n.campaign(false, ctx)
	}
}

// campaign asks every peer for a (pre-)vote. A pre-candidate asks for votes
// in term+1 without adopting it; a candidate has already moved to the new
// term and voted for itself.
func (n *Node) campaign(pre bool, ctx []byte) {
	var term uint64
	var typ MessageType
	if pre {
		n.becomePreCandidate()
		term, typ = n.term+1, MsgPreVote
	} else {
		n.becomeCandidate()
		term, typ = n.term, MsgVote
	}
	if n.recordVote(n.self, true) {
		n.winElection()
		return
	}
	lastIndex, lastTerm := n.log.lastIndex(), n.log.lastTerm()
	for i, p := range n.peers {
		if i == n.self || !n.isVoterAt(i) {
			continue
		}
		n.send(Message{To: p, Type: typ, Term: term, Index: lastIndex, LogTerm: lastTerm, Context: ctx})
	}
}

// recordVote stores a peer's answer and reports whether the election is won.
// A lost election makes the node a follower again. Only voters' answers
// count (a learner may answer: it may have been promoted without our
// knowing, go.etcd.io/raft/v3 raft.Step).
func (n *Node) recordVote(i int, granted bool) bool {
	if i < 0 || !n.isVoterAt(i) {
		return false
	}
	if n.votes[i] == voteUnknown {
		if granted {
			n.votes[i] = voteGranted
		} else {
			n.votes[i] = voteRejected
		}
	}
	yes, no := 0, 0
	for j, v := range n.votes {
		if !n.isVoterAt(j) {
			continue
		}
		switch v {
		case voteGranted:
			yes++
		case voteRejected:
			no++
		}
	}
	q := n.quorum()
	if yes >= q {
		return true
	}
	if no > n.voters-q {
		n.becomeFollower(n.term, None)
	}
	return false
}

// winElection turns a won poll into a real election, or a won election into
// leadership.
func (n *Node) winElection() {
	if n.role == PreCandidate {
		n.campaign(false, nil)
		return
	}
	n.becomeLeader()
	n.bcastAppend()
}

// handleVoteRequest answers MsgVote and MsgPreVote (paper §5.2, §5.4.1):
// grant if we have not voted for someone else in the term (a pre-vote for a
// future term is always allowed) and the candidate's log is at least as
// up-to-date as ours.
func (n *Node) handleVoteRequest(m *Message) {
	respType := MsgVoteResp
	if m.Type == MsgPreVote {
		respType = MsgPreVoteResp
	}
	canVote := n.vote == m.From ||
		(n.vote == None && n.lead == None) ||
		(m.Type == MsgPreVote && m.Term > n.term)
	if canVote && n.log.isUpToDate(m.Index, m.LogTerm) {
		// Answer in the request's term: a granted pre-vote speaks for the
		// future term the candidate asked about.
		n.send(Message{To: m.From, Type: respType, Term: m.Term})
		if m.Type == MsgVote {
			n.electionElapsed = 0
			n.vote = m.From
		}
		return
	}
	n.send(Message{To: m.From, Type: respType, Term: n.term, Reject: true})
}

// stepCandidate is the message handler of pre-candidates and candidates.
func (n *Node) stepCandidate(m *Message) error {
	respType := MsgVoteResp
	if n.role == PreCandidate {
		respType = MsgPreVoteResp
	}
	switch m.Type {
	case MsgProp:
		return ErrProposalDropped
	case MsgApp:
		n.becomeFollower(m.Term, m.From)
		return n.handleAppend(m)
	case MsgHeartbeat:
		n.becomeFollower(m.Term, m.From)
		n.handleHeartbeat(m)
	case MsgSnap:
		n.becomeFollower(m.Term, m.From)
		n.handleSnapshot(m)
	case respType:
		// Pre-vote answers are in term+1; vote answers in our term.
		want := n.term
		if n.role == PreCandidate {
			want = n.term + 1
		}
		if m.Term != want && !(m.Reject && m.Term == n.term) {
			return nil
		}
		if n.recordVote(n.peerIndex(m.From), !m.Reject) {
			n.winElection()
		}
	}
	return nil
}

// hasUnappliedConfChanges reports whether a committed entry after the
// applied index is a conf change (or a snapshot is still to be applied).
func (n *Node) hasUnappliedConfChanges() bool {
	l := &n.log
	if l.pendingSnap != nil {
		return true
	}
	for i := max(l.applied, l.snapIndex) + 1; i <= l.committed; i++ {
		if l.entry(i).Type == EntryConfChange {
			return true
		}
	}
	return false
}
