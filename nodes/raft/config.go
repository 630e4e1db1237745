package raft

import (
	"errors"
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/ablation"
)

// Rand is the injected source of randomness; *math/rand/v2.Rand satisfies it.
// The core draws from it only to randomize election timeouts.
type Rand interface {
	IntN(n int) int
}

// Config configures a Node. ID, Peers and Rand are required; zero numeric
// fields take etcd's defaults.
type Config struct {
	// ID is this node's non-zero identity.
	ID uint64
	// Peers lists the voters of a new cluster, including ID. IDs are
	// non-zero and unique. It is empty for a node that joins an existing
	// cluster: that node learns its configuration from the leader's log or
	// snapshot (etcd starts such a member with raft.RestartNode and no
	// peers). It is ignored when the restored state carries a
	// configuration (a snapshot or PersistentState.ConfState).
	Peers []uint64
	// ElectionTick is the election timeout in ticks (default 10: with etcd's
	// 100 ms tick, 1 s). Each timeout is drawn uniformly from
	// [ElectionTick, 2*ElectionTick).
	ElectionTick int
	// HeartbeatTick is the leader's heartbeat interval in ticks (default 1).
	HeartbeatTick int
	// PreVote makes a node poll its peers before bumping its term, so that a
	// rejoining partitioned node cannot disrupt a healthy leader.
	PreVote bool
	// CheckQuorum makes a leader step down when it has not heard from a
	// quorum for an election timeout, and makes followers that heard from a
	// leader within an election timeout ignore vote requests (leader lease).
	CheckQuorum bool
	// MaxInflightMsgs caps the MsgApps in flight to one follower in
	// replicate state (default 256).
	MaxInflightMsgs int
	// MaxEntriesPerMsg caps the entries in one MsgApp (default 64).
	MaxEntriesPerMsg int
	// Applied is the index the application had already applied before a
	// restart; committed entries up to it are not handed out again. Zero
	// means the snapshot index (the state machine is rebuilt from the
	// snapshot).
	Applied uint64
	// Rand randomizes election timeouts. Required.
	Rand Rand
	// Ablations are the run's ablation switches; Raft asks for
	// ablation.CommitOldTerm, ablation.SkipEmptyEntry and
	// ablation.LeaseReads. They break the
	// protocol on purpose, so that the safety checkers prove they catch
	// it, and are off outside ablation runs.
	Ablations ablation.Set
}

// Defaults of Config's numeric fields.
const (
	// DefaultElectionTick is the election timeout in ticks: with etcd's
	// 100 ms tick, its 1000 ms --election-timeout.
	DefaultElectionTick = 10
	// DefaultHeartbeatTick is the heartbeat interval in ticks, as etcd sets
	// it (HeartbeatTick: 1 in raftConfig).
	DefaultHeartbeatTick = 1
	// DefaultMaxInflightMsgs caps the MsgApps in flight to one follower.
	// It is kubesim's own: etcd v3.7.3 allows 512, with a 1 MiB cap on a
	// message's size instead of an entry count (a known divergence, listed
	// in docs/fidelity.md; flow control only, never what followers hold).
	DefaultMaxInflightMsgs = 256
	// DefaultMaxEntriesPerMsg caps the entries in one MsgApp (kubesim's own;
	// see DefaultMaxInflightMsgs).
	DefaultMaxEntriesPerMsg = 64
)

// maxPeers bounds the cluster size so ReadIndex acknowledgements fit in a
// 64-bit set.
const maxPeers = 64

// withDefaults validates c and fills zero fields with defaults. The returned
// Config owns a sorted copy of Peers.
func (c Config) withDefaults() (Config, error) {
	if c.ID == None {
		return c, errors.New("raft: Config.ID must be non-zero")
	}
	if c.Rand == nil {
		return c, errors.New("raft: Config.Rand is required")
	}
	if c.ElectionTick == 0 {
		c.ElectionTick = DefaultElectionTick
	}
	if c.HeartbeatTick == 0 {
		c.HeartbeatTick = DefaultHeartbeatTick
	}
	if c.HeartbeatTick < 0 || c.ElectionTick <= c.HeartbeatTick {
		return c, fmt.Errorf("raft: ElectionTick (%d) must exceed HeartbeatTick (%d)", c.ElectionTick, c.HeartbeatTick)
	}
	if c.MaxInflightMsgs == 0 {
		c.MaxInflightMsgs = DefaultMaxInflightMsgs
	}
	if c.MaxEntriesPerMsg == 0 {
		c.MaxEntriesPerMsg = DefaultMaxEntriesPerMsg
	}
	if c.MaxInflightMsgs < 0 || c.MaxEntriesPerMsg < 0 {
		return c, errors.New("raft: MaxInflightMsgs and MaxEntriesPerMsg must be positive")
	}
	peers := slices.Clone(c.Peers)
	slices.Sort(peers)
	if len(peers) > maxPeers {
		return c, fmt.Errorf("raft: need 0..%d peers, got %d", maxPeers, len(peers))
	}
	if len(peers) > 0 && peers[0] == None {
		return c, errors.New("raft: peer IDs must be non-zero")
	}
	for i := 1; i < len(peers); i++ {
		if peers[i] == peers[i-1] {
			return c, fmt.Errorf("raft: duplicate peer %d", peers[i])
		}
	}
	if len(peers) > 0 && !slices.Contains(peers, c.ID) {
		return c, fmt.Errorf("raft: Peers must include ID %d", c.ID)
	}
	c.Peers = peers
	return c, nil
}

// Errors returned by the Node API.
var (
	// ErrProposalDropped: the proposal could not be accepted (no known
	// leader, a candidate, or a leadership transfer in progress). Retry later.
	ErrProposalDropped = errors.New("raft: proposal dropped")
	// ErrCompacted: the requested index is already compacted into a snapshot.
	ErrCompacted = errors.New("raft: requested index is compacted")
	// ErrUnavailable: the requested index is not (yet) known or applied.
	ErrUnavailable = errors.New("raft: requested index is unavailable")
	// ErrCommittedConflict: a leader asked this node to overwrite a committed
	// entry. Correct Raft never does this; with an ablation on it
	// shows the safety violation. The message is ignored.
	ErrCommittedConflict = errors.New("raft: append conflicts with a committed entry")
)
