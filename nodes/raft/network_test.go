package raft

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// fataler is the part of testing.TB (and *rapid.T) the harness needs.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// memStorage is a test node's disk: what survives a crash.
type memStorage struct {
	hs   HardState
	snap *Snapshot
	ents []Entry
}

// persist makes rd's durable parts durable, in the contract's order.
func (s *memStorage) persist(rd *Ready) {
	if rd.Snapshot != nil {
		s.snap = rd.Snapshot
		s.ents = nil
	}
	if len(rd.Entries) > 0 {
		off := uint64(1)
		if s.snap != nil {
			off = s.snap.Index + 1
		}
		first := rd.Entries[0].Index
		if first < off {
			panic(fmt.Sprintf("persist: entry %d below snapshot", first))
		}
		keep := min(first-off, uint64(len(s.ents)))
		if keep != first-off {
			panic(fmt.Sprintf("persist: gap before entry %d", first))
		}
		s.ents = append(s.ents[:keep:keep], rd.Entries...)
	}
	if rd.HardStateChanged {
		s.hs = rd.HardState
	}
}

// compact records an application snapshot and drops the entries it covers.
func (s *memStorage) compact(snap *Snapshot) {
	off := uint64(1)
	if s.snap != nil {
		off = s.snap.Index + 1
	}
	drop := min(snap.Index+1-off, uint64(len(s.ents)))
	s.ents = slices.Clone(s.ents[drop:])
	s.snap = snap
}

func (s *memStorage) state() PersistentState {
	return PersistentState{HardState: s.hs, Snapshot: s.snap, Entries: slices.Clone(s.ents)}
}

// testPeer is one simulated host: a node (nil while crashed), its disk, the
// application state it applied, and a Ready whose fsync is in flight.
type testPeer struct {
	id      uint64
	node    *Node
	store   memStorage
	pending *Ready
	applied uint64 // last applied index
	reads   []ReadState
	rng     *rand.Rand
}

// network is the in-test cluster: nodes with IDs 1..n, a FIFO of messages in
// flight, per-link cuts, and hooks to drop or hold messages. It honours the
// persistence contract: a Ready's messages enter the network only after the
// Ready is persisted.
type network struct {
	t      fataler
	peers  []*testPeer
	mutate func(*Config)
	msgs   []Message
	cut    [][]bool // cut[from-1][to-1]
	// drop, if set, discards matching messages when they are sent.
	drop func(Message) bool
	// hold, if set, parks matching messages in held instead of msgs.
	hold func(Message) bool
	held []Message
	chk  *checker
	// voters is the number of initial voters (IDs 1..voters); the other
	// peers start as nodes joining an existing cluster, with no
	// configuration, until a conf change adds them.
	voters int
	// stepErrs collects unexpected Step errors (ErrCommittedConflict).
	stepErrs []error
}

func newNetwork(t fataler, size int, seed uint64, mutate func(*Config)) *network {
	return newNetworkWithVoters(t, size, size, seed, mutate)
}

// newNetworkWithVoters builds a network of size peers of which the first
// voters form the initial configuration; the rest boot empty, as joining
// members do.
func newNetworkWithVoters(t fataler, size, voters int, seed uint64, mutate func(*Config)) *network {
	nw := &network{t: t, mutate: mutate, chk: newChecker(), voters: voters}
	for i := 0; i < size; i++ {
		p := &testPeer{id: uint64(i + 1), rng: rand.New(rand.NewPCG(seed, uint64(i+1)))}
		nw.peers = append(nw.peers, p)
		nw.cut = append(nw.cut, make([]bool, size))
	}
	for _, p := range nw.peers {
		nw.start(p)
	}
	return nw
}

func (nw *network) ids() []uint64 {
	ids := make([]uint64, len(nw.peers))
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

func (nw *network) config(id uint64, rng Rand) Config {
	var peers []uint64
	if id <= uint64(nw.voters) {
		peers = nw.ids()[:nw.voters]
	}
	cfg := Config{ID: id, Peers: peers, ElectionTick: 10, HeartbeatTick: 1, Rand: rng}
	if nw.mutate != nil {
		nw.mutate(&cfg)
	}
	return cfg
}

func (nw *network) start(p *testPeer) {
	n, err := New(nw.config(p.id, p.rng), p.store.state())
	if err != nil {
		nw.t.Fatalf("New(%d): %v", p.id, err)
	}
	p.node = n
	p.pending = nil
	p.applied = n.log.applied
}

func (nw *network) peer(id uint64) *testPeer { return nw.peers[id-1] }
func (nw *network) node(id uint64) *Node     { return nw.peers[id-1].node }

// crash loses everything that is not on the peer's disk.
func (nw *network) crash(id uint64) {
	_ = nw.chk.check(nw) // record what the node knew before it goes
	p := nw.peer(id)
	p.node, p.pending, p.reads = nil, nil, nil
}

// restart rebuilds a crashed peer from its disk.
func (nw *network) restart(id uint64) {
	if p := nw.peer(id); p.node == nil {
		nw.start(p)
	}
}

// startReady takes a Ready from the node: its fsync is now in flight.
func (nw *network) startReady(id uint64) bool {
	p := nw.peer(id)
	if p.node == nil || p.pending != nil || !p.node.HasReady() {
		return false
	}
	rd := p.node.Ready()
	p.pending = &rd
	return true
}

// finishReady completes the in-flight Ready: persist, then send, then apply,
// then Advance.
func (nw *network) finishReady(id uint64) bool {
	p := nw.peer(id)
	if p.node == nil || p.pending == nil {
		return false
	}
	rd := p.pending
	p.pending = nil
	p.store.persist(rd)
	for _, m := range rd.Messages {
		nw.send(m)
	}
	if rd.Snapshot != nil {
		nw.chk.installSnapshot(p, rd.Snapshot)
		p.applied = max(p.applied, rd.Snapshot.Index)
	}
	for i := range rd.CommittedEntries {
		e := &rd.CommittedEntries[i]
		if e.Type == EntryConfChange {
			// The application applies every conf change it is handed,
			// in order (go.etcd.io/raft/v3 RawNode.ApplyConfChange).
			cc, err := UnmarshalConfChange(e.Data)
			if err != nil {
				nw.t.Fatalf("node %d: conf change at %d: %v", p.id, e.Index, err)
			}
			p.node.ApplyConfChange(cc)
		}
		if e.Index <= p.applied {
			continue
		}
		if e.Index != p.applied+1 {
			nw.chk.fail("node %d applies %d after %d", p.id, e.Index, p.applied)
		}
		nw.chk.apply(p.id, e)
		p.applied = e.Index
	}
	p.reads = append(p.reads, rd.ReadStates...)
	p.node.Advance(*rd)
	if p.node.WantsSnapshot() && p.node.log.applied > p.node.log.snapIndex {
		// As etcd sends a snapshot of its current state to a new member.
		idx := p.node.log.applied
		if err := p.node.Compact(idx, []byte(fmt.Sprintf("snap-%d", idx))); err != nil {
			nw.t.Fatalf("Compact: %v", err)
		}
		p.store.compact(p.node.Snapshot())
	}
	return true
}

// process runs complete Ready cycles until the node has nothing left.
func (nw *network) process(id uint64) {
	nw.finishReady(id)
	for nw.startReady(id) {
		nw.finishReady(id)
	}
}

func (nw *network) processAll() {
	for _, p := range nw.peers {
		nw.process(p.id)
	}
}

func (nw *network) send(m Message) {
	if m.To == m.From {
		nw.t.Fatalf("message to self: %+v", m)
	}
	switch {
	case nw.cut[m.From-1][m.To-1], nw.drop != nil && nw.drop(m):
	case nw.hold != nil && nw.hold(m):
		nw.held = append(nw.held, m)
	default:
		nw.msgs = append(nw.msgs, m)
	}
}

// deliver steps message m into its recipient (if up and the link is intact).
func (nw *network) deliver(m Message) {
	p := nw.peer(m.To)
	if p.node == nil || nw.cut[m.From-1][m.To-1] {
		return
	}
	if err := p.node.Step(m); err != nil && !errors.Is(err, ErrProposalDropped) {
		nw.stepErrs = append(nw.stepErrs, err)
	}
}

// stabilize delivers messages and processes Readies until the network is
// quiet (no ticks happen).
func (nw *network) stabilize() {
	for round := 0; ; round++ {
		if round > 10000 {
			nw.t.Fatalf("network did not stabilize")
		}
		nw.processAll()
		_ = nw.chk.check(nw) // violations are kept; tests read nw.check()
		if len(nw.msgs) == 0 {
			return
		}
		msgs := nw.msgs
		nw.msgs = nil
		for _, m := range msgs {
			nw.deliver(m)
			nw.process(m.To)
		}
	}
}

// tick advances every live node's clock k times, stabilizing after each.
func (nw *network) tick(k int) {
	for ; k > 0; k-- {
		for _, p := range nw.peers {
			if p.node != nil {
				p.node.Tick()
			}
		}
		nw.stabilize()
	}
}

// tickOne ticks a single node k times, processing its Readies.
func (nw *network) tickOne(id uint64, k int) {
	for ; k > 0; k-- {
		nw.node(id).Tick()
		nw.process(id)
	}
}

// campaign makes id start an election now and lets it play out.
func (nw *network) campaign(id uint64) {
	if err := nw.node(id).Step(Message{Type: MsgHup}); err != nil {
		nw.t.Fatal(err)
	}
	nw.stabilize()
}

// proposeConfChange proposes cc at id and lets it play out.
func (nw *network) proposeConfChange(id uint64, cc ConfChange) error {
	err := nw.node(id).ProposeConfChange(cc)
	nw.stabilize()
	return err
}

func (nw *network) propose(id uint64, data string) error {
	err := nw.node(id).Propose([]byte(data))
	nw.stabilize()
	return err
}

// isolate cuts every link to and from id.
func (nw *network) isolate(id uint64) {
	for j := range nw.peers {
		if uint64(j+1) != id {
			nw.cut[id-1][j] = true
			nw.cut[j][id-1] = true
		}
	}
}

// cutLink cuts the links between a and b in both directions.
func (nw *network) cutLink(a, b uint64) {
	nw.cut[a-1][b-1] = true
	nw.cut[b-1][a-1] = true
}

// heal restores every link and forgets the drop and hold hooks.
func (nw *network) heal() {
	for i := range nw.cut {
		clear(nw.cut[i])
	}
	nw.drop, nw.hold = nil, nil
}

// release puts held messages back into the network.
func (nw *network) release() {
	held := nw.held
	nw.held = nil
	nw.msgs = append(nw.msgs, held...)
}

// leader returns the ID of the live leader with the highest term, or None.
func (nw *network) leader() uint64 {
	var lead, term uint64
	for _, p := range nw.peers {
		if p.node != nil && p.node.role == Leader && p.node.term >= term {
			lead, term = p.id, p.node.term
		}
	}
	return lead
}

// countType counts in-flight messages of type t.
func (nw *network) countType(t MessageType) int {
	c := 0
	for _, m := range nw.msgs {
		if m.Type == t {
			c++
		}
	}
	return c
}

// check runs the safety invariants over the live nodes.
func (nw *network) check() error {
	return nw.chk.check(nw)
}
