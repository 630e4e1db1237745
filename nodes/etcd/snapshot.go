package etcd

import (
	"crypto/sha1"
	"encoding/binary"
	"slices"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// SnapshotStreamTime is how long a member takes to stream a snapshot to
// the client. etcd's Maintenance.Snapshot opens one read transaction on
// the backend (backend.Snapshot, server/storage/backend/backend.go) and
// streams the bolt file from it in 32 KiB chunks
// (server/etcdserver/api/v3rpc/maintenance.go); the member keeps applying
// meanwhile. The stores kubesim simulates are small, so the time is a
// modelling choice, not an etcd default: long enough that writes land
// during the copy, which a snapshot must not see.
const SnapshotStreamTime = 100 * time.Millisecond

// snapshotRequest asks a member for a snapshot of its store.
type snapshotRequest struct{}

// Snapshot is what `etcdctl snapshot save` writes: a member's store at one
// revision. It holds each live key's latest version (etcd's file holds the
// bolt database, history since the last compaction included; a restore
// keeps only what this holds, plus the revision), the revision and
// compact revision, the member's hash of the content (etcd appends a
// SHA-256 of the stream, checked on restore), and the IDs of the member
// and cluster it came from.
type Snapshot struct {
	Member          string
	MemberID        uint64
	ClusterID       uint64
	Revision        int64
	CompactRevision int64
	KVs             []mvcc.KeyValue
	// Hash is etcdtrace.StateHash of KVs, as the member computed it.
	Hash uint64
}

// SnapshotStatusResult is `etcdutl snapshot status`: the revision, the
// number of keys and the hash of a snapshot's content.
type SnapshotStatusResult struct {
	Revision  int64
	TotalKeys int
	Hash      uint64
}

// SnapshotStatus reads a snapshot as `etcdutl snapshot status` reads a
// file (etcdutl/snapshot/v3_snapshot.go, Status): the live keys are
// counted and the hash is recomputed from the content, not taken from
// the member's label, so that a damaged object shows a hash other than
// the one the member traced. The revision is the snapshot's own: etcd
// reads the highest revision in the key bucket, which a snapshot without
// history (a deletion leaves no tombstone here) cannot tell.
func SnapshotStatus(s *Snapshot) SnapshotStatusResult {
	return SnapshotStatusResult{Revision: s.Revision, TotalKeys: len(s.KVs), Hash: etcdtrace.StateHash(StateChanges(s.KVs))}
}

// StateChanges turns a snapshot's key-values into the puts
// etcdtrace.StateHash reads.
func StateChanges(kvs []mvcc.KeyValue) []etcdtrace.Change {
	out := make([]etcdtrace.Change, len(kvs))
	for i, kv := range kvs {
		out[i] = etcdtrace.Change{Type: etcdtrace.ChangePut, Key: string(kv.Key), Value: string(kv.Value),
			ModRev: kv.ModRevision, CreateRev: kv.CreateRevision, Version: kv.Version}
	}
	return out
}

// ClusterID is the cluster ID etcd derives from its members' IDs: the
// first 8 bytes of the SHA-1 of the sorted IDs, big-endian
// (server/etcdserver/api/membership/cluster.go, genID).
func ClusterID(peers []Peer) uint64 {
	ids := make([]uint64, len(peers))
	for i, p := range peers {
		ids[i] = p.ID
	}
	slices.Sort(ids)
	b := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		b = binary.BigEndian.AppendUint64(b, id)
	}
	sum := sha1.Sum(b)
	return binary.BigEndian.Uint64(sum[:8])
}

// handleSnapshot serves Maintenance.Snapshot: the store is read at once,
// as one read transaction, and the snapshot reaches the client once its
// stream time has passed. With the snapshot-not-point-in-time ablation
// the keys are read when the stream ends instead, under the revision of
// its start.
func (m *member) handleSnapshot(q *sim.Request) {
	rev := m.store.Rev()
	snap := m.readSnapshot(rev)
	m.h.After(SnapshotStreamTime, "etcd-snapshot-stream", func() {
		if m.cfg.Ablations.Has(ablation.SnapshotNotPointInTime) {
			snap = m.readSnapshot(m.store.Rev())
			snap.Revision = rev
		}
		m.h.Emit(&etcdtrace.SnapshotSave{Member: snap.Member, MemberID: snap.MemberID, ClusterID: snap.ClusterID,
			Rev: snap.Revision, Keys: len(snap.KVs), Hash: snap.Hash})
		q.Reply(&reply{Header: m.newHeader(), Snapshot: snap})
	})
}

// readSnapshot copies the store's live keys at rev, which must be
// retained.
func (m *member) readSnapshot(rev int64) *Snapshot {
	res, _ := m.store.Range([]byte{0}, []byte{0}, mvcc.RangeOptions{Rev: rev})
	return &Snapshot{
		Member:          m.cfg.Name,
		MemberID:        m.cfg.ID,
		ClusterID:       ClusterID(m.cfg.Peers),
		Revision:        rev,
		CompactRevision: m.store.CompactRev(),
		KVs:             res.KVs,
		Hash:            etcdtrace.StateHash(StateChanges(res.KVs)),
	}
}

// Snapshot asks one member for a snapshot, without failover, as
// `etcdctl snapshot save` takes exactly one endpoint.
func (c *Client) Snapshot(endpoint sim.HostID, done func(*Snapshot, error)) {
	c.rpc.Call(endpoint, ClientPort, &snapshotRequest{}, c.cfg.RequestTimeout, func(resp any, err error) {
		r, ok := resp.(*reply)
		switch {
		case err != nil:
			done(nil, ErrDeadlineExceeded)
		case !ok || r.Snapshot == nil:
			done(nil, replyErr(r, ok))
		default:
			done(r.Snapshot, nil)
		}
	})
}
