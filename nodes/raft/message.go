package raft

import "strconv"

// None is the zero node ID; it means "no leader" or "no vote".
const None uint64 = 0

// MessageType names what a Message asks or answers. Local types (MsgHup,
// MsgBeat) are never sent over the network; the rest are exchanged between
// peers.
type MessageType uint8

// The message types. Request/response pairs follow the Raft paper's RPCs:
// AppendEntries is MsgApp/MsgAppResp (heartbeats are empty appends split out
// as MsgHeartbeat so they can carry ReadIndex rounds), RequestVote is
// MsgVote/MsgVoteResp, InstallSnapshot is MsgSnap (answered by MsgAppResp).
const (
	MsgHup            MessageType = iota // local: start an election now
	MsgBeat                              // local: leader broadcasts a heartbeat now
	MsgProp                              // a proposal, forwarded by a follower to its leader
	MsgApp                               // AppendEntries request
	MsgAppResp                           // AppendEntries (and snapshot) response
	MsgVote                              // RequestVote request
	MsgVoteResp                          // RequestVote response
	MsgPreVote                           // PreVote request (thesis §9.6)
	MsgPreVoteResp                       // PreVote response
	MsgSnap                              // InstallSnapshot request
	MsgHeartbeat                         // leader heartbeat; Index carries a ReadIndex round
	MsgHeartbeatResp                     // heartbeat response; echoes Index
	MsgTransferLeader                    // ask the leader to hand leadership to Index
	MsgTimeoutNow                        // leader tells the transferee to campaign at once
	MsgReadIndex                         // a follower forwards a read request to the leader
	MsgReadIndexResp                     // the leader answers a forwarded read request
	numMessageTypes
)

var msgTypeNames = [numMessageTypes]string{
	"MsgHup", "MsgBeat", "MsgProp", "MsgApp", "MsgAppResp", "MsgVote",
	"MsgVoteResp", "MsgPreVote", "MsgPreVoteResp", "MsgSnap", "MsgHeartbeat",
	"MsgHeartbeatResp", "MsgTransferLeader", "MsgTimeoutNow", "MsgReadIndex",
	"MsgReadIndexResp",
}

// String returns the type's name, for traces and test failures.
func (t MessageType) String() string {
	if t < numMessageTypes {
		return msgTypeNames[t]
	}
	return "MessageType(" + strconv.Itoa(int(t)) + ")"
}

// isResponse reports whether t answers a request; responses never change the
// receiver's term unless they carry a higher one.
func isResponse(t MessageType) bool {
	switch t {
	case MsgAppResp, MsgVoteResp, MsgPreVoteResp, MsgHeartbeatResp, MsgReadIndexResp:
		return true
	}
	return false
}

// EntryType distinguishes application entries from the leader's no-op.
type EntryType uint8

const (
	// EntryNormal carries application data proposed through Propose.
	EntryNormal EntryType = iota
	// EntryEmpty is the no-op a new leader appends so that it can commit
	// entries of earlier terms (paper §5.4.2, §8).
	EntryEmpty
	// EntryConfChange carries a ConfChange (Data is ConfChange.Marshal);
	// it takes effect when the application applies it and calls
	// ApplyConfChange (thesis §4.1, as go.etcd.io/raft does it).
	EntryConfChange
)

// Entry is one log entry. Data is shared, never copied, and must not be
// mutated once proposed.
type Entry struct {
	Term  uint64
	Index uint64
	Type  EntryType
	Data  []byte
}

// Message is the unit of communication between peers. Which fields matter
// depends on Type:
//   - MsgApp: Index/LogTerm identify the entry preceding Entries; Commit is the
//     leader's commit index.
//   - MsgAppResp: Index is the follower's last matching index, or, with Reject,
//     the rejected Index; RejectHint/LogTerm then point at the follower's
//     conflict (index, term) for fast backtracking.
//   - MsgVote/MsgPreVote: Index/LogTerm are the candidate's last entry;
//     Context is "transfer" for a leadership-transfer campaign.
//   - MsgSnap: Snapshot.
//   - MsgHeartbeat(Resp): Commit is what the follower may commit; Index is
//     the leader's ReadIndex round (0 if none), echoed in the response.
//   - MsgTransferLeader: Index is the ID of the proposed new leader.
//   - MsgReadIndex(Resp): Context is the read request's context; Index is
//     the read index in MsgReadIndexResp.
type Message struct {
	Type       MessageType
	Reject     bool // next to Type, so that a Message packs into 128 bytes
	From       uint64
	To         uint64
	Term       uint64
	LogTerm    uint64
	Index      uint64
	Entries    []Entry
	Commit     uint64
	RejectHint uint64
	Snapshot   *Snapshot
	Context    []byte
}

// HardState is the part of a node's state that must be durable before it
// sends the messages that depend on it: its term, its vote in that term, and
// the commit index (the latter may be persisted lazily; it is restored only
// as a hint bounded by the log).
type HardState struct {
	Term   uint64
	Vote   uint64
	Commit uint64
}

// IsEmpty reports whether hs is the zero HardState of a brand-new node.
func (hs HardState) IsEmpty() bool { return hs == HardState{} }

// Snapshot is a compacted prefix of the log: the application state after
// applying every entry up to Index (whose term is Term), and ConfState, the
// configuration in effect at Index (go.etcd.io/raft/v3 SnapshotMetadata).
// LogHash is the
// running FNV-1a log hash at Index, so that a node restored from the snapshot
// keeps reporting a hash comparable with its peers.
type Snapshot struct {
	Index     uint64
	Term      uint64
	ConfState ConfState
	Data      []byte
	LogHash   uint64
}

// PersistentState is what a node restarts from: the last durable HardState,
// the latest durable snapshot (nil if none) and the durable log entries after
// it, contiguous and starting at Snapshot.Index+1 (or 1).
//
// The configuration is rebuilt from it as etcd rebuilds it: ConfState, if
// non-nil, is the configuration the application persisted as applied at
// Config.Applied (etcd keeps it in its backend); otherwise it is the
// snapshot's ConfState (or Config.Peers without a snapshot) followed by the
// conf change entries up to Config.Applied, which the core replays, and then
// by those the application applies again from Ready.
type PersistentState struct {
	HardState HardState
	Snapshot  *Snapshot
	Entries   []Entry
	ConfState *ConfState
}

// ReadState answers a ReadIndex request: once the application has applied
// every entry up to Index, a read of its state is linearizable. Ctx is the
// request's context as passed to ReadIndex.
type ReadState struct {
	Index uint64
	Ctx   []byte
}

// transferContext marks the vote requests of a leadership-transfer campaign;
// they bypass the followers' leader lease (thesis §3.10 with §6.2).
var transferContext = []byte("transfer")

func isTransferCampaign(ctx []byte) bool {
	return string(ctx) == string(transferContext)
}
