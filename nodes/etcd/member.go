package etcd

import (
	"fmt"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// exposeName is what a live member publishes itself under (sim.Host.Expose).
const exposeName = "etcd-member"

// member is one incarnation of a simulated etcd member.
type member struct {
	h    *sim.Host
	cfg  Config
	disk *sim.Disk
	node *raft.Node

	// What is durable (or being made durable) on disk, mirrored in memory
	// so that the WAL can be rewritten after a snapshot, as etcd's
	// MemoryStorage mirrors its WAL.
	hs        raft.HardState
	snapIndex uint64
	ents      []raft.Entry // log entries after snapIndex

	inFlight bool       // a Ready awaits its fsync
	syncing  raft.Ready // that Ready
	onSynced func()     // m.synced, allocated once

	// The state machine.
	store    *mvcc.Store
	applied  uint64
	dedup    map[string]uint64 // client identity -> highest applied sequence
	internal mvcc.WatchID      // whole-keyspace watch that reports each entry's changes

	// Client requests.
	waiters map[requestID]*waiter
	reads   []*pendingRead
	readSeq uint64
	watches []*watchStream
	// progressRand jitters each watch's progress ticker.
	progressRand *sim.Stream

	tick *sim.Timer
	last raftView
	// booted is the log loaded from the disk, traced when the member
	// starts (etcdtrace.Persist with Boot set).
	booted *etcdtrace.Persist

	// BUGGIFY (buggify.go): the committed entries whose apply lags and
	// the timer that applies them, and the peers whose stream is slow
	// (looked up, never ranged).
	lagged   []raft.Entry
	lagTimer *sim.Timer
	slow     map[sim.HostID]*slowPeer

	// Membership (membership.go): the applied members, the IDs removed
	// for good, when each peer was last heard from, the hosts of peers
	// outside the applied membership that sent messages (rafthttp's
	// remotes), whether the membership ever changed (snapshots then
	// carry it), and whether this member removed itself.
	cluster    []Member
	removedIDs map[uint64]bool
	heard      map[uint64]sim.Time
	remotes    map[uint64]sim.HostID
	dynamic    bool
	stopped    bool
}

// Boot returns the sim.HostSpec.Boot function of a member: it rebuilds the
// member from the host's disk, installs its handlers and starts its clock.
func Boot(cfg Config) func(h *sim.Host) {
	return func(h *sim.Host) {
		m, err := newMember(h, cfg.withDefaults(h))
		if err != nil {
			panic(fmt.Sprintf("etcd: member %s cannot boot: %v", h.Name(), err))
		}
		m.start()
	}
}

// newMember restores a member from its disk.
func newMember(h *sim.Host, cfg Config) (*member, error) {
	if id, peers, ok := loadMembership(h.Disk()); ok {
		// A restored data directory names the member and its cluster.
		cfg.ID, cfg.Peers = id, peers
	}
	m := &member{
		h:       h,
		cfg:     cfg,
		disk:    h.Disk(),
		store:   mvcc.New(),
		dedup:   make(map[string]uint64),
		waiters: make(map[requestID]*waiter),
		remotes: make(map[uint64]sim.HostID),
	}
	m.onSynced = m.synced
	m.store.Ablations = cfg.Ablations
	m.initCluster()
	ps, dropped := loadDisk(m.disk)
	if s := ps.Snapshot; s != nil {
		if err := m.restoreState(s.Data); err != nil {
			return nil, err
		}
		m.snapIndex, m.applied = s.Index, s.Index
	}
	m.hs, m.ents = ps.HardState, ps.Entries
	m.booted = bootPersisted(cfg.Name, &ps)
	m.startInternalWatch()
	var ids []uint64 // a joining member starts with no configuration
	if !cfg.Join {
		ids = make([]uint64, len(cfg.Peers))
		for i, p := range cfg.Peers {
			ids[i] = p.ID
		}
	}
	node, err := raft.New(raft.Config{
		ID:            cfg.ID,
		Peers:         ids,
		ElectionTick:  cfg.electionTick(),
		HeartbeatTick: 1,
		PreVote:       PreVote,
		CheckQuorum:   CheckQuorum,
		Rand:          h.Rand("raft"),
		Ablations:     cfg.Ablations,
	}, ps)
	if err != nil {
		return nil, err
	}
	m.node = node
	if dropped > 0 {
		// Cut the torn tail off, so that later appends are readable.
		m.rewriteWAL()
	}
	return m, nil
}

// start installs the handlers and the Raft clock, and hands the committed
// entries after the snapshot to the Ready loop.
func (m *member) start() {
	m.h.Handle(PeerPort, m.handlePeer)
	sim.Serve(m.h, ClientPort, m.handleClient)
	m.h.Expose(exposeName, m)
	m.tick = m.h.NewTimer("raft-tick", m.handleTick)
	m.tick.Reset(m.cfg.HeartbeatInterval)
	m.h.Emit(m.booted)
	m.booted = nil
	m.emitState(true)
	m.afterInput()
}

// handleTick advances Raft's logical clock.
func (m *member) handleTick() {
	if m.stopped {
		return
	}
	m.tick.Reset(m.cfg.HeartbeatInterval)
	m.node.Tick()
	m.afterInput()
}

// handlePeer feeds a Raft message from another member into the core.
func (m *member) handlePeer(msg *sim.Message) {
	if _, ok := msg.Payload.(*removedNotice); ok {
		m.stopRemoved()
		return
	}
	rm, ok := msg.Payload.(*raft.Message)
	if !ok || m.stopped {
		return
	}
	if m.removedIDs[rm.From] {
		// etcd's transport refuses messages from removed members
		// (rafthttp: "rejected stream from remote peer because it was
		// removed", HTTP 410 Gone), and the removed member stops when
		// told so (errMemberRemoved reaches the server's errorc). The
		// answer goes back on the sender's own connection, so it reaches
		// a member this one no longer knows the address of (a member
		// added after the bootstrap and removed since: etcd-swarm at 3
		// members, seed 49, kept one campaigning to the end).
		m.h.Send(msg.From, PeerPort, &removedNotice{})
		return
	}
	m.heard[rm.From] = m.h.Now()
	m.addRemote(rm.From, msg.From)
	_ = m.node.Step(*rm)
	m.afterInput()
}

// afterInput runs the Ready loop and traces state changes after the core
// was fed a tick, a message, a proposal or a read request.
func (m *member) afterInput() {
	m.maybeReady()
	m.emitState(false)
}

// maybeReady carries out Readys, one at a time, until the core has nothing
// to hand out or a Ready waits for its fsync.
func (m *member) maybeReady() {
	for !m.inFlight && m.node.HasReady() {
		rd := m.node.Ready()
		if len(rd.ReadStates) > 0 {
			// etcd hands a Ready's read states to its linearizable read
			// loop at once, before the Ready's entries are saved and
			// applied (server/etcdserver/raft.go, raftNode.start, sends
			// them on readStateC first); each read then waits until the
			// member has applied up to its index.
			m.handleReadStates(rd.ReadStates)
			m.serveReads()
		}
		// A leader sends its appends and heartbeats while it writes its
		// own log, as etcd's raftNode does (server/etcdserver/raft.go:
		// "the leader can write to its disk in parallel with replicating
		// to the followers", raft thesis §10.2.1): the core counts the
		// leader's own entries towards a quorum only once they are
		// durable. Everyone else acknowledges only what is durable.
		early := m.node.Role() == raft.Leader || m.cfg.Ablations.Has(ablation.AckBeforeFsync)
		wrote := m.persist(&rd)
		if early {
			m.sendMessages(rd.Messages) // the ablation: everyone acknowledges before fsync
			rd.Messages = nil
		}
		if !wrote {
			m.finishReady(rd)
			continue
		}
		m.inFlight = true
		m.syncing = rd
		m.disk.Sync(m.onSynced)
		return
	}
}

// synced finishes the Ready that awaited its fsync.
func (m *member) synced() {
	rd := m.syncing
	m.syncing = raft.Ready{}
	m.inFlight = false
	m.emitPersisted(&rd)
	m.finishReady(rd)
	m.afterInput()
}

// finishReady is the second half of a Ready, once it is durable: send its
// messages (unless they went before the fsync), install its snapshot, apply
// its committed entries (or queue them, when BUGGIFY lags the apply:
// applyCommitted), serve the reads whose index is now applied and
// acknowledge it.
func (m *member) finishReady(rd raft.Ready) {
	m.sendMessages(rd.Messages)
	if rd.Snapshot != nil {
		m.applyLaggedNow()
		m.installSnapshot(rd.Snapshot)
	}
	m.applyCommitted(rd.CommittedEntries)
	m.node.Advance(rd)
	m.serveReads()
	m.maybeSnapshot()
}

// sendMessages puts Raft messages on the fabric. The core never rewrites a
// slice it handed out, so the messages can travel as they are: each as a
// pointer into the Ready's slice, which no one modifies afterwards.
func (m *member) sendMessages(msgs []raft.Message) {
	for i := range msgs {
		if to, ok := m.peerHost(msgs[i].To); ok {
			m.sendToPeer(to, &msgs[i])
		}
	}
}

// persist writes a Ready's snapshot, entries and HardState to the disk
// (without syncing) and reports whether it wrote anything.
func (m *member) persist(rd *raft.Ready) bool {
	if s := rd.Snapshot; s != nil {
		m.disk.Set(snapFile, encodeSnapshot(s))
		m.snapIndex, m.ents = s.Index, nil
	}
	for _, e := range rd.Entries {
		m.ents = appendEntry(m.ents, m.snapIndex, e)
	}
	if rd.HardStateChanged {
		m.hs = rd.HardState
	}
	if rd.Snapshot != nil {
		m.rewriteWAL()
		return true
	}
	for i := range rd.Entries {
		m.disk.Append(walFile, encodeEntry(&rd.Entries[i]))
	}
	if rd.HardStateChanged {
		m.disk.Append(walFile, encodeHardState(rd.HardState))
	}
	return len(rd.Entries) > 0 || rd.HardStateChanged
}

// rewriteWAL replaces the WAL with the HardState and the entries after the
// snapshot, atomically.
func (m *member) rewriteWAL() {
	recs := make([][]byte, 0, len(m.ents)+1)
	recs = append(recs, encodeHardState(m.hs))
	for i := range m.ents {
		recs = append(recs, encodeEntry(&m.ents[i]))
	}
	m.disk.Set(walFile, recs...)
}

// maybeSnapshot takes a Raft snapshot every SnapshotCount applied entries:
// it compacts the core's log, writes the snapshot file and rewrites the WAL
// without the compacted entries. The writes become durable with the next
// fsync; until then the old files are a consistent state too.
func (m *member) maybeSnapshot() {
	if m.applied < m.snapIndex+m.cfg.SnapshotCount && !(m.node.WantsSnapshot() && m.applied > m.snapIndex) {
		// Besides every SnapshotCount entries, a snapshot is taken when
		// the leader must catch up a member added after its latest one
		// (etcd sends a snapshot of its current state then).
		return
	}
	buf := m.encodeStateAt(snapshotRecordRoom, sealSize)
	if err := m.node.Compact(m.applied, buf[snapshotRecordRoom:]); err != nil {
		return
	}
	s := m.node.Snapshot()
	m.disk.Set(snapFile, encodeSnapshotRecord(s, buf))
	if k := s.Index - m.snapIndex; k <= uint64(len(m.ents)) {
		m.ents = append([]raft.Entry(nil), m.ents[k:]...)
	} else {
		m.ents = nil
	}
	m.snapIndex = s.Index
	m.rewriteWAL()
}
