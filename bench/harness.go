// Package bench compares kubesim's Raft core (nodes/raft) with etcd's
// go.etcd.io/raft/v3 under one workload. It is a separate module so that the
// main module never depends on etcd.
//
// Both harnesses drive a cluster of N in-process nodes the same way (one
// driver, cluster, runs both):
//
//   - Storage is in memory: etcd gets a raft.MemoryStorage per node; kubesim's
//     core owns its log, and the harness keeps what Ready says to persist
//     (HardState, Entries, Snapshot) in a per-node slice, as a disk would.
//   - One proposal per op: propose a payload on the leader, then run rounds
//     until the leader has applied it. A round visits every node in ID order
//     and handles its Ready (persist, queue its messages, apply its committed
//     entries, Advance); then every queued message is delivered, in FIFO
//     order, to its target's Step. Messages still queued when the leader
//     applies (commit-index updates to followers and their answers) are
//     delivered by the next op's rounds, so in steady state every op does the
//     full work of one commit on all N nodes.
//   - No Tick during the measured loop: the leader is elected before the
//     timer starts, and no heartbeat or election timeout interferes.
//   - Every compactEvery commits, each node compacts its log (and storage) to
//     its applied index, so memory stays bounded whatever b.N is.
package bench

import (
	"fmt"
	"io"
	"log"
	"math/rand/v2"

	kraft "github.com/kubesim/kubesim/nodes/raft"
	eraft "go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// Settings shared by both implementations.
const (
	electionTick    = 10
	heartbeatTick   = 1
	maxInflightMsgs = 256
	maxSizePerMsg   = 1 << 20 // etcd only: kubesim caps entries per message instead
	compactEvery    = 1024    // commits between log compactions
	payloadSize     = 1024    // bytes per proposal
)

// harness is one in-process cluster of a Raft implementation.
type harness interface {
	// propose proposes data on the leader and runs rounds until the leader
	// has applied it.
	propose(data []byte) error
	// flush runs rounds until no node has anything left to do.
	flush()
	// appliedData returns, per node, the data of the normal entries it
	// applied (only if recording was requested).
	appliedData() [][][]byte
}

// newHarness builds and elects a cluster of the named implementation.
// With record set, nodes keep a copy of every applied payload (for tests).
func newHarness(impl string, members int, record bool) (harness, error) {
	switch impl {
	case "kubesim":
		return newKubesimCluster(members, record)
	case "etcd":
		return newEtcdCluster(members, record)
	}
	return nil, fmt.Errorf("unknown impl %q", impl)
}

// payloads returns k distinct payloads of payloadSize bytes. The benchmark
// cycles through them, so proposals allocate nothing in the harness.
func payloads(k int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]byte, k)
	for i := range out {
		p := make([]byte, payloadSize)
		for j := range p {
			p[j] = byte(r.Uint32())
		}
		out[i] = p
	}
	return out
}

func peerIDs(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

// member is one node of an implementation, as the driver sees it.
type member[M any] interface {
	// handleReady handles the node's Ready, if it has one: persists it,
	// appends its messages to msgs, applies its committed entries and
	// calls Advance. ok is false when the node had no Ready.
	handleReady(msgs []M) (out []M, ok bool)
	step(m M)
	propose(data []byte) error
	compact() error
	// appliedCount is how many normal entries the node has applied;
	// appliedPayloads their data, if it records them.
	appliedCount() int
	appliedPayloads() [][]byte
}

// cluster drives the nodes of either implementation (N, exchanging
// messages M) the same way: the rounds, proposals and compactions of the
// package doc. It is the harness of both.
type cluster[M any, N member[M]] struct {
	impl     string         // names the implementation in errors
	to       func(M) uint64 // a message's target node ID
	nodes    []N
	msgs     []M
	spare    []M
	proposed int
}

// round handles every node's Ready, then delivers the queued messages. It
// reports whether anything happened.
func (c *cluster[M, N]) round() bool {
	busy := false
	for _, s := range c.nodes {
		var ok bool
		if c.msgs, ok = s.handleReady(c.msgs); ok {
			busy = true
		}
	}
	if len(c.msgs) == 0 {
		return busy
	}
	msgs := c.msgs
	c.msgs = c.spare[:0]
	for i := range msgs {
		c.nodes[c.to(msgs[i])-1].step(msgs[i])
	}
	clear(msgs)
	c.spare = msgs
	return true
}

func (c *cluster[M, N]) propose(data []byte) error {
	leader := c.nodes[0]
	if err := leader.propose(data); err != nil {
		return err
	}
	c.proposed++
	for leader.appliedCount() < c.proposed {
		if !c.round() {
			return fmt.Errorf("%s: stalled with %d of %d applied", c.impl, leader.appliedCount(), c.proposed)
		}
	}
	if c.proposed%compactEvery == 0 {
		for _, s := range c.nodes {
			if err := s.compact(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *cluster[M, N]) flush() {
	for c.round() {
	}
}

func (c *cluster[M, N]) appliedData() [][][]byte {
	out := make([][][]byte, len(c.nodes))
	for i, s := range c.nodes {
		out[i] = s.appliedPayloads()
	}
	return out
}

// ---------------------------------------------------------------- kubesim

type kubesimNode struct {
	n *kraft.Node
	// "disk"
	hs   kraft.HardState
	snap *kraft.Snapshot
	ents []kraft.Entry // persisted entries after snap
	// state machine
	applied uint64 // last applied index
	count   int    // normal entries applied
	record  bool
	data    [][]byte
}

func (s *kubesimNode) handleReady(msgs []kraft.Message) ([]kraft.Message, bool) {
	if !s.n.HasReady() {
		return msgs, false
	}
	rd := s.n.Ready()
	s.persist(&rd)
	msgs = append(msgs, rd.Messages...)
	s.apply(rd.CommittedEntries)
	s.n.Advance(rd)
	return msgs, true
}

func (s *kubesimNode) step(m kraft.Message)      { _ = s.n.Step(m) }
func (s *kubesimNode) propose(data []byte) error { return s.n.Propose(data) }
func (s *kubesimNode) appliedCount() int         { return s.count }
func (s *kubesimNode) appliedPayloads() [][]byte { return s.data }

func (s *kubesimNode) persist(rd *kraft.Ready) {
	if rd.Snapshot != nil {
		s.snap = rd.Snapshot
		s.ents = s.ents[:0]
	}
	if len(rd.Entries) > 0 {
		first := rd.Entries[0].Index
		off := uint64(0)
		if s.snap != nil {
			off = s.snap.Index
		}
		keep := min(uint64(len(s.ents)), first-off-1)
		s.ents = append(s.ents[:keep], rd.Entries...)
	}
	if rd.HardStateChanged {
		s.hs = rd.HardState
	}
}

func (s *kubesimNode) apply(ents []kraft.Entry) {
	for i := range ents {
		e := &ents[i]
		s.applied = e.Index
		if e.Type == kraft.EntryNormal {
			s.count++
			if s.record {
				s.data = append(s.data, append([]byte(nil), e.Data...))
			}
		}
	}
}

func (s *kubesimNode) compact() error {
	off := uint64(0)
	if s.snap != nil {
		off = s.snap.Index
	}
	if s.applied <= off {
		return nil
	}
	if err := s.n.Compact(s.applied, nil); err != nil {
		return err
	}
	s.snap = s.n.Snapshot()
	s.ents = append(s.ents[:0], s.ents[s.applied-off:]...)
	return nil
}

func newKubesimCluster(members int, record bool) (*cluster[kraft.Message, *kubesimNode], error) {
	c := &cluster[kraft.Message, *kubesimNode]{impl: "kubesim", to: func(m kraft.Message) uint64 { return m.To }}
	for i := 1; i <= members; i++ {
		n, err := kraft.New(kraft.Config{
			ID:              uint64(i),
			Peers:           peerIDs(members),
			ElectionTick:    electionTick,
			HeartbeatTick:   heartbeatTick,
			PreVote:         true,
			CheckQuorum:     true,
			MaxInflightMsgs: maxInflightMsgs,
			Rand:            rand.New(rand.NewPCG(uint64(i), 0)),
		}, kraft.PersistentState{})
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, &kubesimNode{n: n, record: record})
	}
	if err := c.nodes[0].n.Step(kraft.Message{Type: kraft.MsgHup, From: 1, To: 1}); err != nil {
		return nil, err
	}
	c.flush()
	if c.nodes[0].n.Role() != kraft.Leader {
		return nil, fmt.Errorf("kubesim: node 1 is %v after campaigning", c.nodes[0].n.Role())
	}
	return c, nil
}

// ---------------------------------------------------------------- etcd

type etcdNode struct {
	rn *eraft.RawNode
	ms *eraft.MemoryStorage
	cs *pb.ConfState
	// state machine
	applied uint64
	count   int
	record  bool
	data    [][]byte
}

func (s *etcdNode) handleReady(msgs []*pb.Message) ([]*pb.Message, bool) {
	if !s.rn.HasReady() {
		return msgs, false
	}
	rd := s.rn.Ready()
	if err := s.persist(&rd); err != nil {
		panic(err)
	}
	msgs = append(msgs, rd.Messages...)
	s.apply(rd.CommittedEntries)
	s.rn.Advance(rd)
	return msgs, true
}

func (s *etcdNode) step(m *pb.Message)        { _ = s.rn.Step(m) }
func (s *etcdNode) propose(data []byte) error { return s.rn.Propose(data) }
func (s *etcdNode) appliedCount() int         { return s.count }
func (s *etcdNode) appliedPayloads() [][]byte { return s.data }

func (s *etcdNode) persist(rd *eraft.Ready) error {
	if !eraft.IsEmptySnap(rd.Snapshot) {
		if err := s.ms.ApplySnapshot(rd.Snapshot); err != nil {
			return err
		}
	}
	if err := s.ms.Append(rd.Entries); err != nil {
		return err
	}
	if rd.HardState != nil {
		if err := s.ms.SetHardState(rd.HardState); err != nil {
			return err
		}
	}
	return nil
}

func (s *etcdNode) apply(ents []*pb.Entry) {
	for _, e := range ents {
		s.applied = e.GetIndex()
		// A new leader's no-op is an EntryNormal without data.
		if e.GetType() == pb.EntryType_EntryNormal && len(e.GetData()) > 0 {
			s.count++
			if s.record {
				s.data = append(s.data, append([]byte(nil), e.GetData()...))
			}
		}
	}
}

func (s *etcdNode) compact() error {
	first, _ := s.ms.FirstIndex()
	if s.applied < first {
		return nil
	}
	if _, err := s.ms.CreateSnapshot(s.applied, s.cs, nil); err != nil {
		return err
	}
	return s.ms.Compact(s.applied)
}

var discard = &eraft.DefaultLogger{Logger: log.New(io.Discard, "", 0)}

func newEtcdCluster(members int, record bool) (*cluster[*pb.Message, *etcdNode], error) {
	c := &cluster[*pb.Message, *etcdNode]{impl: "etcd", to: (*pb.Message).GetTo}
	cs := &pb.ConfState{Voters: peerIDs(members)}
	for i := 1; i <= members; i++ {
		ms := eraft.NewMemoryStorage()
		// Start from the membership alone (snapshot index 0), as etcd's
		// own tests do, instead of bootstrapping via conf-change entries.
		if err := ms.ApplySnapshot(&pb.Snapshot{Metadata: &pb.SnapshotMetadata{ConfState: cs}}); err != nil {
			return nil, err
		}
		rn, err := eraft.NewRawNode(&eraft.Config{
			ID:              uint64(i),
			ElectionTick:    electionTick,
			HeartbeatTick:   heartbeatTick,
			Storage:         ms,
			MaxSizePerMsg:   maxSizePerMsg,
			MaxInflightMsgs: maxInflightMsgs,
			CheckQuorum:     true,
			PreVote:         true,
			Logger:          discard,
		})
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, &etcdNode{rn: rn, ms: ms, cs: cs, record: record})
	}
	if err := c.nodes[0].rn.Campaign(); err != nil {
		return nil, err
	}
	c.flush()
	if st := c.nodes[0].rn.BasicStatus(); st.RaftState != eraft.StateLeader {
		return nil, fmt.Errorf("etcd: node 1 is %v after campaigning", st.RaftState)
	}
	return c, nil
}
