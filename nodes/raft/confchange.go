package raft

import (
	"encoding/binary"
	"errors"
	"slices"
)

// ConfChangeType says what a single-server configuration change does
// (thesis §4.1; go.etcd.io/raft/v3 raftpb.ConfChangeType).
type ConfChangeType uint8

// The single-server changes. Promoting a learner is ConfChangeAddNode of the
// learner's ID, as etcd proposes it (server/etcdserver/server.go,
// PromoteMember: "raftpb.ConfChangeAddNode" with IsPromote in the context).
const (
	// ConfChangeAddNode adds a voter, or promotes an existing learner.
	ConfChangeAddNode ConfChangeType = iota
	// ConfChangeRemoveNode removes a voter or a learner.
	ConfChangeRemoveNode
	// ConfChangeAddLearnerNode adds a learner (a non-voting member that
	// receives the log; thesis §4.2.1).
	ConfChangeAddLearnerNode
)

var confChangeTypeNames = [...]string{"AddNode", "RemoveNode", "AddLearnerNode"}

// String returns the change type's name.
func (t ConfChangeType) String() string {
	if int(t) < len(confChangeTypeNames) {
		return confChangeTypeNames[t]
	}
	return "ConfChangeType(?)"
}

// ConfChange is one single-server configuration change. It travels in the
// Data of an EntryConfChange entry (see Marshal). Context is the
// application's, opaque to Raft (etcd puts the member's attributes there).
type ConfChange struct {
	Type    ConfChangeType
	NodeID  uint64
	Context []byte
}

// Marshal encodes cc as an entry's Data: the type byte, the node ID as a
// uvarint, then Context.
func (cc ConfChange) Marshal() []byte {
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(cc.Context))
	b = append(b, byte(cc.Type))
	b = binary.AppendUvarint(b, cc.NodeID)
	return append(b, cc.Context...)
}

// errBadConfChange: an EntryConfChange's Data does not decode.
var errBadConfChange = errors.New("raft: malformed conf change")

// UnmarshalConfChange decodes what ConfChange.Marshal encoded.
func UnmarshalConfChange(data []byte) (ConfChange, error) {
	if len(data) < 2 || data[0] > byte(ConfChangeAddLearnerNode) {
		return ConfChange{}, errBadConfChange
	}
	id, k := binary.Uvarint(data[1:])
	if k <= 0 {
		return ConfChange{}, errBadConfChange
	}
	cc := ConfChange{Type: ConfChangeType(data[0]), NodeID: id}
	if rest := data[1+k:]; len(rest) > 0 {
		cc.Context = rest
	}
	return cc, nil
}

// ConfState is a configuration: the voters, whose majority decides
// elections, commitment, ReadIndex and CheckQuorum, and the learners, which
// only receive the log (go.etcd.io/raft/v3 raftpb.ConfState, without the
// joint-consensus fields: kubesim makes single-server changes only). Both
// lists are sorted and disjoint.
type ConfState struct {
	Voters   []uint64
	Learners []uint64
}

// Clone returns a deep copy of cs.
func (cs ConfState) Clone() ConfState {
	return ConfState{Voters: slices.Clone(cs.Voters), Learners: slices.Clone(cs.Learners)}
}

// Equal reports whether cs and o name the same voters and learners.
func (cs ConfState) Equal(o ConfState) bool {
	return slices.Equal(cs.Voters, o.Voters) && slices.Equal(cs.Learners, o.Learners)
}

// IsEmpty reports whether cs has no members at all (a node that joins an
// existing cluster before it learns the configuration).
func (cs ConfState) IsEmpty() bool { return len(cs.Voters) == 0 && len(cs.Learners) == 0 }

// Contains reports whether id is a voter or a learner of cs.
func (cs ConfState) Contains(id uint64) bool {
	return slices.Contains(cs.Voters, id) || slices.Contains(cs.Learners, id)
}

// apply returns the configuration after cc, or an error if cc cannot be
// applied: it would leave no voter, or add a member beyond maxPeers
// (go.etcd.io/raft/v3 confchange.Changer.Simple refuses "removed all
// voters"; kubesim refuses instead of panicking, and the change is a no-op).
// A learner added again as a learner, a voter added again as a voter and the
// removal of an unknown node are no-ops, as in confchange.
func (cs ConfState) apply(cc ConfChange) (ConfState, error) {
	out := cs.Clone()
	id := cc.NodeID
	if id == None {
		// The application refused the change: etcd sets NodeID to
		// raft.None and raft skips it (confchange.Changer.apply).
		return out, nil
	}
	switch cc.Type {
	case ConfChangeAddNode:
		out.Learners = remove(out.Learners, id)
		out.Voters = insert(out.Voters, id)
	case ConfChangeAddLearnerNode:
		// confchange.makeLearner: a voter made a learner is demoted (a
		// one-voter change like any other); etcd never proposes it.
		out.Voters = remove(out.Voters, id)
		out.Learners = insert(out.Learners, id)
	case ConfChangeRemoveNode:
		out.Voters = remove(out.Voters, id)
		out.Learners = remove(out.Learners, id)
	default:
		return cs, errBadConfChange
	}
	if len(out.Voters) == 0 {
		return cs, errors.New("raft: removed all voters")
	}
	if len(out.Voters)+len(out.Learners) > maxPeers {
		return cs, errors.New("raft: too many members")
	}
	return out, nil
}

func insert(s []uint64, id uint64) []uint64 {
	i, found := slices.BinarySearch(s, id)
	if found {
		return s
	}
	return slices.Insert(s, i, id)
}

func remove(s []uint64, id uint64) []uint64 {
	i, found := slices.BinarySearch(s, id)
	if !found {
		return s
	}
	s = slices.Delete(s, i, i+1)
	if len(s) == 0 {
		return nil // an empty list is nil, so that ConfStates compare equal
	}
	return s
}

// ProposeConfChange proposes a single-server configuration change as an
// EntryConfChange log entry. Like Propose, success only means the proposal
// was accepted for appending; the leader turns it into an empty entry if an
// earlier change is not yet applied (see stepLeader). The change takes effect
// on each node when its application applies the committed entry and calls
// ApplyConfChange (go.etcd.io/raft/v3 RawNode.ProposeConfChange).
func (n *Node) ProposeConfChange(cc ConfChange) error {
	return n.stepMsg(&Message{Type: MsgProp, From: n.id,
		Entries: []Entry{{Type: EntryConfChange, Data: cc.Marshal()}}})
}

// ApplyConfChange applies a committed conf change to the node's
// configuration and returns the resulting ConfState. The application calls
// it when it applies an EntryConfChange entry, in log order, for every such
// entry (including those whose change it refuses to record: it then passes
// the change anyway, or an equivalent no-op such as removing an unknown
// node). A change that is invalid for Raft (removing the last voter) leaves
// the configuration as it is (go.etcd.io/raft/v3 RawNode.ApplyConfChange).
func (n *Node) ApplyConfChange(cc ConfChange) ConfState {
	index := n.log.applying
	if len(n.confQueue) > 0 {
		index = n.confQueue[0]
		n.confQueue = n.confQueue[1:]
		if index <= n.confHistory[len(n.confHistory)-1].index {
			// Handed out before a snapshot that already carries a
			// later configuration.
			return n.conf.Clone()
		}
	}
	cs, err := n.conf.apply(cc)
	if err != nil {
		return n.conf.Clone()
	}
	n.recordConf(index, cs)
	n.switchToConfig(cs)
	return cs.Clone()
}

// ConfState returns the node's current configuration (a copy).
func (n *Node) ConfState() ConfState { return n.conf.Clone() }

// confAt remembers the configuration that took effect at a log index, so
// that a snapshot at an index records the configuration of that index.
type confAt struct {
	index uint64
	conf  ConfState
}

// recordConf appends cs, in effect from index on, to the history.
func (n *Node) recordConf(index uint64, cs ConfState) {
	n.confHistory = append(n.confHistory, confAt{index: index, conf: cs})
}

// confStateAt returns the configuration in effect after applying index, and
// forgets history that no later snapshot can need.
func (n *Node) confStateAt(index uint64) ConfState {
	k := 0
	for i := range n.confHistory {
		if n.confHistory[i].index <= index {
			k = i
		}
	}
	cs := n.confHistory[k].conf
	n.confHistory = n.confHistory[k:]
	return cs
}

// switchToConfig installs cs: per-peer state is rebuilt for the new
// membership (positions follow the sorted member IDs), keeping the progress,
// votes and read acknowledgements of members that stay. A leader that is no
// longer a voter steps down (etcd sets raft's StepDownOnRemoval); a leader
// that stays commits what the new quorum allows and starts replicating to
// new members (go.etcd.io/raft/v3 raft.switchToConfig).
func (n *Node) switchToConfig(cs ConfState) {
	n.conf = cs
	members := make([]uint64, 0, len(cs.Voters)+len(cs.Learners))
	members = append(members, cs.Voters...)
	members = append(members, cs.Learners...)
	slices.Sort(members)
	oldPeers, oldPrs, oldVotes := n.peers, n.prs, n.votes
	oldPos := func(id uint64) int {
		for i, p := range oldPeers {
			if p == id {
				return i
			}
		}
		return -1
	}
	n.peers = members
	n.self = -1
	n.voterMask, n.voters = 0, len(cs.Voters)
	n.prs = make([]progress, len(members))
	n.votes = make([]vote, len(members))
	remap := make([]int, len(oldPeers)) // old position -> new position or -1
	for i := range remap {
		remap[i] = -1
	}
	last := n.log.lastIndex()
	for i, id := range members {
		if id == n.id {
			n.self = i
		}
		if _, ok := slices.BinarySearch(cs.Voters, id); ok {
			n.voterMask |= 1 << uint(i)
		}
		if j := oldPos(id); j >= 0 {
			n.prs[i] = oldPrs[j]
			n.votes[i] = oldVotes[j]
			remap[j] = i
			continue
		}
		// A new member is probed from our last index and counts as
		// recently active, so that CheckQuorum does not fire before it
		// could answer (confchange.initProgress).
		n.prs[i].ins = newInflights(n.cfg.MaxInflightMsgs)
		n.prs[i].reset(last + 1)
		n.prs[i].recentActive = true
	}
	if n.self >= 0 {
		n.prs[n.self].ins = inflights{}
	}
	for k := range n.reads {
		var acks uint64
		for j := range oldPeers {
			if n.reads[k].acks&(1<<uint(j)) != 0 && remap[j] >= 0 {
				acks |= 1 << uint(remap[j])
			}
		}
		n.reads[k].acks = acks
	}
	if n.role != Leader {
		if n.role != Follower && !n.isVoter() {
			n.becomeFollower(n.term, None)
		}
		return
	}
	if !n.isVoter() {
		n.becomeFollower(n.term, None)
		return
	}
	if n.leadTransferee != None && !n.isVoterID(n.leadTransferee) {
		n.leadTransferee = None
	}
	if n.maybeCommit() {
		n.bcastAppend()
	} else {
		for i := range n.peers {
			if i != n.self {
				n.sendAppend(i, false)
			}
		}
	}
	n.maybeFinishReads()
}

// isVoter reports whether this node is a voter of its configuration: only
// voters campaign (go.etcd.io/raft/v3 raft.promotable).
func (n *Node) isVoter() bool { return n.self >= 0 && n.isVoterAt(n.self) }

// isVoterAt reports whether the member at position i is a voter.
func (n *Node) isVoterAt(i int) bool { return n.voterMask&(1<<uint(i)) != 0 }

// isVoterID reports whether id is a voter.
func (n *Node) isVoterID(id uint64) bool {
	i := n.peerIndex(id)
	return i >= 0 && n.isVoterAt(i)
}

// initConfig sets the starting configuration of a (re)started node: the
// application's persisted ConfState if given, else the snapshot's, else the
// bootstrap peers, then replays the conf changes of entries the application
// has already applied (Config.Applied) after it.
func (n *Node) initConfig(ps PersistentState) error {
	var cs ConfState
	switch {
	case ps.ConfState != nil:
		cs = ps.ConfState.Clone()
	case ps.Snapshot != nil:
		cs = ps.Snapshot.ConfState.Clone()
	default:
		cs = ConfState{Voters: n.cfg.Peers}
	}
	if err := validateConfState(cs); err != nil {
		return err
	}
	base := n.log.snapIndex
	n.confHistory = []confAt{{index: base, conf: cs}}
	if ps.ConfState == nil {
		for i := base + 1; i <= n.log.applied; i++ {
			e := n.log.entry(i)
			if e.Type != EntryConfChange {
				continue
			}
			cc, err := UnmarshalConfChange(e.Data)
			if err != nil {
				return err
			}
			if next, err := cs.apply(cc); err == nil {
				cs = next
				n.recordConf(i, cs)
			}
		}
	}
	n.switchToConfig(cs)
	return nil
}

// validateConfState checks that cs is sorted, disjoint and small enough.
func validateConfState(cs ConfState) error {
	if len(cs.Voters)+len(cs.Learners) > maxPeers {
		return errors.New("raft: too many members")
	}
	for _, s := range [][]uint64{cs.Voters, cs.Learners} {
		if !slices.IsSorted(s) || slices.Contains(s, None) {
			return errors.New("raft: ConfState lists must be sorted and non-zero")
		}
		for i := 1; i < len(s); i++ {
			if s[i] == s[i-1] {
				return errors.New("raft: duplicate member in ConfState")
			}
		}
	}
	for _, l := range cs.Learners {
		if _, ok := slices.BinarySearch(cs.Voters, l); ok {
			return errors.New("raft: a member is both voter and learner")
		}
	}
	return nil
}

// Match returns what the leader knows the member id holds (its match
// index), and false if this node is not the leader or id is no member.
// etcd's isLearnerReady compares a learner's match with the leader's.
func (n *Node) Match(id uint64) (uint64, bool) {
	i := n.peerIndex(id)
	if n.role != Leader || i < 0 {
		return 0, false
	}
	return n.prs[i].match, true
}
