package raft

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/ablation"
)

// Role is a node's part in the protocol.
type Role uint8

// The roles. PreCandidate is the PreVote polling phase (thesis §9.6).
const (
	Follower Role = iota
	PreCandidate
	Candidate
	Leader
)

var roleNames = [...]string{"Follower", "PreCandidate", "Candidate", "Leader"}

// String returns the role's name.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// vote records one peer's answer in the current election.
type vote uint8

const (
	voteUnknown vote = iota
	voteGranted
	voteRejected
)

// Node is one Raft peer's consensus state. It is not safe for concurrent use;
// kubesim drives every node from the single simulation goroutine.
type Node struct {
	cfg   Config
	id    uint64
	peers []uint64 // sorted member IDs (voters and learners); per-peer state is indexed by position
	self  int      // position of id in peers; -1 if this node is no member

	// The configuration (thesis §4.1): conf as applied, the positions of
	// its voters in peers, and its number of voters.
	conf      ConfState
	voterMask uint64
	voters    int
	// confHistory is the configuration at the latest snapshot index and
	// every one applied since, so that Compact records the one in effect
	// at its index; confQueue holds the indexes of the conf change entries
	// handed out for application but not yet passed to ApplyConfChange.
	confHistory []confAt
	confQueue   []uint64
	// pendingConfIndex is the leader's guard against two conf changes in
	// flight: no conf change is accepted while an entry up to this index
	// may be an unapplied conf change (go.etcd.io/raft/v3 raft.go).
	pendingConfIndex uint64
	// wantSnapshot: a member to catch up is missing from the latest
	// snapshot's configuration (see WantsSnapshot).
	wantSnapshot bool

	term uint64
	vote uint64
	role Role
	lead uint64

	log raftLog

	prs   []progress // leader only; indexed by peer position
	votes []vote     // candidates only; indexed by peer position

	electionElapsed           int
	heartbeatElapsed          int
	randomizedElectionTimeout int

	leadTransferee uint64

	reads        []readRequest // leader: ReadIndex rounds awaiting a quorum
	pendingReads []readRequest // leader: reads waiting for a current-term commit
	readSeq      uint64        // leader: last ReadIndex heartbeat round (monotonic)

	msgs       []Message
	readStates []ReadState
	prevHS     HardState

	// Role behaviour, installed only by the become* functions (the step
	// handler is chosen from role, which only become* sets).
	tick func()
}

// New creates a node from cfg and the state it persisted before (the zero
// PersistentState for a brand-new node).
func New(cfg Config, restored PersistentState) (*Node, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, id: cfg.ID, self: -1}
	if err := n.restore(restored); err != nil {
		return nil, err
	}
	if err := n.initConfig(restored); err != nil {
		return nil, err
	}
	n.becomeFollower(n.term, None)
	return n, nil
}

// restore loads persisted state into a fresh node.
func (n *Node) restore(ps PersistentState) error {
	l := &n.log
	l.hash = fnvOffset
	if s := ps.Snapshot; s != nil {
		l.snapIndex, l.snapTerm, l.snapshot = s.Index, s.Term, s
		l.hash = s.LogHash
	}
	next := l.snapIndex + 1
	for i := range ps.Entries {
		if ps.Entries[i].Index != next {
			return fmt.Errorf("raft: restored entry %d has index %d, want %d", i, ps.Entries[i].Index, next)
		}
		next++
	}
	// Copy: the caller's storage may rewrite its slice later.
	l.ents = slices.Clone(ps.Entries)
	l.stabled = l.lastIndex()
	l.committed = l.snapIndex
	l.applying = l.snapIndex
	hs := ps.HardState
	if hs.Commit > l.lastIndex() {
		return fmt.Errorf("raft: restored commit %d beyond last index %d", hs.Commit, l.lastIndex())
	}
	l.commitTo(hs.Commit)
	if a := n.cfg.Applied; a > l.applying {
		if a > l.committed {
			return errors.New("raft: Config.Applied beyond the commit index")
		}
		l.applying = a
	}
	l.applied = l.applying
	n.term, n.vote = hs.Term, hs.Vote
	n.prevHS = n.hardState()
	return nil
}

func (n *Node) hardState() HardState {
	return HardState{Term: n.term, Vote: n.vote, Commit: n.log.committed}
}

// quorum is the size of a majority of the voters; learners never count
// (thesis §4.2.1).
func (n *Node) quorum() int { return n.voters/2 + 1 }

// peerIndex returns the position of id in peers, or -1 if it is no member.
func (n *Node) peerIndex(id uint64) int {
	for i, p := range n.peers {
		if p == id {
			return i
		}
	}
	return -1
}

// reset prepares the per-term state shared by every role change.
func (n *Node) reset(term uint64) {
	if n.term != term {
		n.term = term
		n.vote = None
	}
	n.lead = None
	n.electionElapsed = 0
	n.heartbeatElapsed = 0
	n.resetRandomizedElectionTimeout()
	n.leadTransferee = None
	clear(n.votes)
	n.reads = n.reads[:0]
	n.pendingReads = n.pendingReads[:0]
}

func (n *Node) resetRandomizedElectionTimeout() {
	n.randomizedElectionTimeout = n.cfg.ElectionTick + n.cfg.Rand.IntN(n.cfg.ElectionTick)
}

// becomeFollower makes the node a follower of lead (None if unknown) in term.
func (n *Node) becomeFollower(term, lead uint64) {
	n.reset(term)
	n.role = Follower
	n.lead = lead
	n.tick = n.tickElection
}

// becomePreCandidate starts a PreVote poll without touching term or vote.
func (n *Node) becomePreCandidate() {
	if n.role == Leader {
		panic("raft: leader cannot become pre-candidate")
	}
	clear(n.votes)
	n.role = PreCandidate
	n.lead = None
	n.tick = n.tickElection
}

// becomeCandidate starts a real election: a new term and a vote for itself.
func (n *Node) becomeCandidate() {
	if n.role == Leader {
		panic("raft: leader cannot become candidate")
	}
	n.reset(n.term + 1)
	n.vote = n.id
	n.role = Candidate
	n.tick = n.tickElection
}

// becomeLeader takes leadership of the current term: it resets every
// follower's progress to probing from its own last index and appends the
// empty entry that lets it commit entries of earlier terms (paper §5.4.2),
// unless the SkipEmptyEntry ablation is on.
func (n *Node) becomeLeader() {
	if n.role == Follower {
		panic("raft: follower cannot become leader")
	}
	n.reset(n.term)
	n.role = Leader
	n.lead = n.id
	n.tick = n.tickHeartbeat
	last := n.log.lastIndex()
	for i := range n.prs {
		n.prs[i].reset(last + 1)
	}
	self := &n.prs[n.self]
	self.match = n.log.stabled
	self.state = stateReplicate
	self.recentActive = true
	// Conservatively, any entry in the log may be an unapplied conf change
	// (go.etcd.io/raft/v3 becomeLeader sets pendingConfIndex to the last
	// index).
	n.pendingConfIndex = last
	if n.cfg.Ablations.Has(ablation.SkipEmptyEntry) {
		// Ablation: nothing of this term in the log until a proposal;
		// followers still learn of the leader from its (empty) probes.
		return
	}
	n.appendEntries(Entry{Type: EntryEmpty})
}

// Tick advances the node's logical clock by one tick.
func (n *Node) Tick() { n.tick() }

// Step feeds a message from a peer (or a local MsgHup/MsgBeat) into the node.
// Messages from nodes outside the configuration are processed too, as in
// go.etcd.io/raft: a joining node learns its configuration from the leader's
// appends, and a leader learns of votes from members it has not applied
// yet; only answers to a leader need the sender's progress.
func (n *Node) Step(m Message) error { return n.stepMsg(&m) }

// stepMsg applies the term rules every role shares (paper §5.1, thesis
// §9.6 and §6.2), answers votes, and hands the rest to the role's step.
func (n *Node) stepMsg(m *Message) error {
	if m.Type >= numMessageTypes {
		return fmt.Errorf("raft: unknown message type %d", m.Type)
	}
	switch {
	case m.Term == 0:
		// Local message or proposal forwarded without a term.
	case m.Term > n.term:
		if m.Type == MsgVote || m.Type == MsgPreVote {
			inLease := n.cfg.CheckQuorum && n.lead != None && n.electionElapsed < n.cfg.ElectionTick
			if inLease && !isTransferCampaign(m.Context) {
				// Leader lease (thesis §6.2 / §4.2.3): we heard from a
				// leader recently, so this candidate cannot be needed.
				return nil
			}
		}
		switch {
		case m.Type == MsgPreVote:
			// A pre-vote never changes our term.
		case m.Type == MsgPreVoteResp && !m.Reject:
			// Granted pre-votes carry the future term; we adopt it only
			// if the poll wins.
		case m.Type == MsgApp || m.Type == MsgHeartbeat || m.Type == MsgSnap:
			n.becomeFollower(m.Term, m.From)
		default:
			n.becomeFollower(m.Term, None)
		}
	case m.Term < n.term:
		if (n.cfg.CheckQuorum || n.cfg.PreVote) && (m.Type == MsgHeartbeat || m.Type == MsgApp) {
			// A stale leader cannot learn our term from votes we would
			// ignore; tell it so it steps down.
			n.send(Message{To: m.From, Type: MsgAppResp})
		} else if m.Type == MsgPreVote {
			n.send(Message{To: m.From, Type: MsgPreVoteResp, Term: n.term, Reject: true})
		}
		return nil
	}

	switch m.Type {
	case MsgHup:
		n.hup(m.Context)
		return nil
	case MsgVote, MsgPreVote:
		n.handleVoteRequest(m)
		return nil
	}
	// The handler follows the role that become* set; a switch rather than
	// a stored func keeps m on the caller's stack.
	switch n.role {
	case Leader:
		return n.stepLeader(m)
	case Candidate, PreCandidate:
		return n.stepCandidate(m)
	default:
		return n.stepFollower(m)
	}
}

// send queues m for the next Ready, stamping sender and term. Vote and
// pre-vote messages carry their own term.
func (n *Node) send(m Message) {
	m.From = n.id
	switch m.Type {
	case MsgVote, MsgVoteResp, MsgPreVote, MsgPreVoteResp:
		if m.Term == 0 {
			panic("raft: vote message without term")
		}
	case MsgProp, MsgReadIndex:
		// Forwarded requests carry no term: they are valid for any leader.
	default:
		m.Term = n.term
	}
	if n.msgs == nil {
		// One allocation per Ready: a leader usually talks to every peer
		// at once, a follower answers one.
		c := 1
		if n.role == Leader {
			c = max(len(n.peers)-1, 1)
		}
		n.msgs = make([]Message, 0, c)
	}
	n.msgs = append(n.msgs, m)
}
