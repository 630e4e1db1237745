package etcd

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// applyEntry applies one committed entry to the store, traces it, forwards
// the watch responses it caused and answers the client waiting for it here.
func (m *member) applyEntry(e *raft.Entry) {
	ev := &etcdtrace.Apply{Member: m.cfg.Name, Index: e.Index, Term: e.Term, EntryHash: hashData(e.Data)}
	var w *writeRequest
	var rep *reply
	if e.Type == raft.EntryNormal && len(e.Data) > 0 {
		if req, err := decodeProposal(e.Data); err == nil {
			w = req
		}
	}
	if e.Type == raft.EntryConfChange {
		m.applyConfChange(e)
	}
	if w != nil && !m.isDuplicate(w.ID) {
		m.dedup[w.ID.Client] = max(m.dedup[w.ID.Client], w.ID.Seq)
		rep = m.applyWrite(w)
		if w.Op == opCompact && rep.Err == nil {
			ev.Compact = w.Rev
		}
	}
	m.applied = e.Index
	ev.Rev = m.store.Rev()
	ev.Changes = m.flushWatches(true)
	m.h.Emit(ev)
	if rep != nil {
		m.answerWaiter(w.ID, rep)
	}
}

// isDuplicate reports whether the request was applied before, unless the
// apply-duplicates ablation is on. Clients number their requests in
// increasing order, so one number per client identity is enough.
func (m *member) isDuplicate(id requestID) bool {
	if m.cfg.Ablations.Has(ablation.NoDedup) {
		return false
	}
	seq, ok := m.dedup[id.Client]
	return ok && id.Seq <= seq
}

// applyWrite runs a write request against the store.
func (m *member) applyWrite(w *writeRequest) *reply {
	r := &reply{}
	var err error
	switch w.Op {
	case opPut:
		var res mvcc.PutResult
		res, err = m.store.Put(w.Key, w.Value, mvcc.PutOptions{PrevKV: w.PrevKV})
		r.Put = &res
	case opDelete:
		var res mvcc.DeleteResult
		res, err = m.store.DeleteRange(w.Key, w.End, w.PrevKV)
		r.Delete = &res
	case opTxn:
		var res mvcc.TxnResponse
		if w.Txn == nil {
			err = ErrUnknownRequest
			break
		}
		res, err = m.store.Txn(*w.Txn)
		r.Txn = &res
	case opCompact:
		err = m.store.Compact(w.Rev)
	default:
		err = ErrUnknownRequest
	}
	if err != nil {
		r = &reply{Err: err}
	}
	r.Header = m.newHeader()
	return r
}

// newHeader makes the response header of an answer given now.
func (m *member) newHeader() Header {
	return Header{Revision: m.store.Rev(), MemberID: m.cfg.ID, Member: m.cfg.Name, RaftTerm: m.node.Term()}
}

// AppendChanges appends watch events to out as the trace's changes, their
// keys and values made strings by str. A watcher's trace copies them
// (string(b)); the member's own trace of what it applied shares the
// events' bytes instead (sharedString): the store makes each event's Key
// and Value afresh for its watch responses (mvcc keyHistory.event), and
// neither the store nor any watcher writes to them afterwards, so the
// strings never change.
func AppendChanges(out []etcdtrace.Change, evs []mvcc.Event, str func([]byte) string) []etcdtrace.Change {
	if len(evs) == 0 {
		return out
	}
	if out == nil {
		out = make([]etcdtrace.Change, 0, len(evs))
	}
	for _, ev := range evs {
		c := etcdtrace.Change{Type: "put", Key: str(ev.Kv.Key), ModRev: ev.Kv.ModRevision}
		if ev.Type == mvcc.EventDelete {
			c.Type = "delete"
		} else {
			c.Value, c.CreateRev, c.Version = str(ev.Kv.Value), ev.Kv.CreateRevision, ev.Kv.Version
		}
		out = append(out, c)
	}
	return out
}

// sharedString is b as a string without a copy; b must never be written
// again.
func sharedString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// startInternalWatch (re)creates the member's own whole-keyspace watch, through which
// the store reports each entry's changes for the Apply trace event.
func (m *member) startInternalWatch() {
	id, err := m.store.NewWatch(mvcc.WatchRequest{Key: []byte{0}, End: []byte{0}})
	if err != nil {
		panic("etcd: internal watch: " + err.Error())
	}
	m.internal = id
}

// installSnapshot replaces the state machine with a snapshot received from
// the leader.
func (m *member) installSnapshot(s *raft.Snapshot) {
	_ = m.store.CancelWatch(m.internal)
	if err := m.restoreState(s.Data); err != nil {
		panic("etcd: leader sent a corrupt snapshot: " + err.Error())
	}
	m.startInternalWatch()
	m.applied = max(m.applied, s.Index)
	m.flushWatches(false)
}

// snapshotMagic starts the member's snapshot data; clusterMagic starts it
// when the membership changed since bootstrap, and the membership follows.
const (
	snapshotMagic = "ketcd\x01"
	clusterMagic  = "ketcd\x02"
)

// encodeState encodes the state machine: the de-duplication table, then the
// store's own snapshot.
func (m *member) encodeState() []byte { return m.encodeStateAt(0, 0) }

// encodeStateAt is encodeState built in one allocation, after room free
// bytes and with spare capacity after it; it returns the whole buffer
// (the state is buf[room:]). The snapshot record of the WAL wraps the
// state in place (encodeSnapshotRecord) instead of copying the store's
// whole history once more.
func (m *member) encodeStateAt(room, spare int) []byte {
	b := []byte(snapshotMagic)
	if m.dynamic {
		b = m.encodeCluster([]byte(clusterMagic))
	}
	clients := sim.SortedKeys(m.dedup)
	b = binary.AppendUvarint(b, uint64(len(clients)))
	for _, c := range clients {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
		b = binary.AppendUvarint(b, m.dedup[c])
	}
	// The store's history is most of it: one allocation, one copy.
	buf := make([]byte, room, room+len(b)+m.store.SnapshotSize()+spare)
	return m.store.AppendSnapshot(append(buf, b...))
}

var errBadSnapshot = errors.New("etcd: invalid snapshot data")

// restoreState replaces the state machine with encodeState's output.
func (m *member) restoreState(data []byte) error {
	if len(data) < len(snapshotMagic) {
		return errBadSnapshot
	}
	r := reader{b: data[len(snapshotMagic):]}
	switch string(data[:len(snapshotMagic)]) {
	case clusterMagic:
		if err := m.decodeCluster(&r); err != nil {
			return err
		}
	case snapshotMagic:
		if m.dynamic { // the snapshot predates any change: bootstrap
			heard := m.heard
			m.initCluster()
			m.heard = heard
			m.dynamic = false
		}
	default:
		return errBadSnapshot
	}
	n := r.uvarint()
	dedup := make(map[string]uint64)
	for i := uint64(0); i < n && r.err == nil; i++ {
		l := r.uvarint()
		if r.err != nil || l > uint64(len(r.b)) {
			return errBadSnapshot
		}
		c := string(r.b[:l])
		r.b = r.b[l:]
		dedup[c] = r.uvarint()
	}
	if r.err != nil {
		return errBadSnapshot
	}
	if err := m.store.Restore(r.b); err != nil {
		return err
	}
	m.dedup = dedup
	return nil
}
