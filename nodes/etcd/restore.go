package etcd

import (
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// membershipFile holds what etcd keeps in the WAL's metadata (the
// member's and the cluster's IDs) and in the backend's members bucket
// (every member): a member whose data directory has it boots as that
// member of that cluster, whatever its flags say, as etcd ignores
// --initial-cluster once its data directory exists
// (server/etcdserver/bootstrap.go, bootstrapWithWAL).
const membershipFile = "member"

// recMembership is the kind of the membership file's record.
const recMembership byte = 16

// InitialMember is one entry of `etcdutl snapshot restore`'s
// --initial-cluster: a member's name, its peer URL and the simulated host
// it will run on.
type InitialMember struct {
	Name    string
	PeerURL string
	Host    sim.HostID
}

// PeerURL is the peer URL of a member running on the host called name,
// as kubeadm writes it (https://<host>:2380).
func PeerURL(name string) string { return "https://" + name + ":2380" }

// MemberID is the ID etcd gives a member of a new cluster: the first 8
// bytes, big-endian, of the SHA-1 of its sorted peer URLs followed by the
// cluster token (server/etcdserver/api/membership/member.go,
// computeMemberID, without the time a runtime member add mixes in).
func MemberID(peerURLs []string, token string) uint64 {
	urls := slices.Clone(peerURLs)
	sort.Strings(urls)
	sum := sha1.Sum([]byte(strings.Join(urls, "") + token))
	return binary.BigEndian.Uint64(sum[:8])
}

// NewClusterPeers returns the peers of the new cluster that
// --initial-cluster and --initial-cluster-token describe, each with the
// ID MemberID derives (membership.NewClusterFromURLsMap). Two members
// with one ID, or an ID of 0 (raft's None), are refused.
func NewClusterPeers(initial []InitialMember, token string) ([]Peer, error) {
	peers := make([]Peer, 0, len(initial))
	seen := make(map[uint64]bool, len(initial))
	for _, m := range initial {
		id := MemberID([]string{m.PeerURL}, token)
		if id == 0 || seen[id] {
			return nil, fmt.Errorf("etcd: restore: member %s has ID %x, taken or invalid", m.Name, id)
		}
		seen[id] = true
		peers = append(peers, Peer{ID: id, Host: m.Host, Name: m.Name})
	}
	return peers, nil
}

// RestoreConfig is what `etcdutl snapshot restore` is given.
type RestoreConfig struct {
	// Name is --name: the member whose data directory is built.
	Name string
	// InitialCluster and InitialClusterToken are --initial-cluster and
	// --initial-cluster-token: the new cluster's members, whose IDs
	// (and so the cluster ID) derive from their peer URLs and the token.
	InitialCluster      []InitialMember
	InitialClusterToken string
	// BumpRevision is --bump-revision: the restored store's revision is
	// the snapshot's plus this, so that every later revision is above
	// every revision the lost cluster handed out, if it is large enough.
	BumpRevision int64
	// MarkCompacted is --mark-compacted: the store records a compaction
	// at the bumped revision, so that a read or watch from any older
	// revision fails as compacted and clients relist. etcdutl requires it
	// with a bump, and refuses it without one.
	MarkCompacted bool
	// SkipHashCheck is --skip-hash-check: restore a snapshot whose content
	// does not match its hash (a copy of a data directory's db file).
	SkipHashCheck bool
	// Ablations are the run's ablation switches (restore-drops-keys-range).
	Ablations ablation.Set
}

// RestoreResult describes a data directory Restore built.
type RestoreResult struct {
	MemberID, ClusterID uint64
	// Peers are the new cluster's members.
	Peers []Peer
	// Revision and CompactRevision are the restored store's.
	Revision, CompactRevision int64
	// Index and Term are the Raft snapshot's, which the HardState commits.
	Index, Term uint64
	// Keys counts the restored keys.
	Keys int
}

// Errors of Restore, as etcdutl's.
var (
	ErrRestoreDataDirNotEmpty = errors.New("etcd: restore: data-dir not empty")
	ErrRestoreHashMismatch    = errors.New("etcd: restore: snapshot hash mismatch")
	ErrRestoreFlags           = errors.New("etcd: restore: --mark-compacted required if --bump-revision > 0, and only then")
	ErrRestoreNotMember       = errors.New("etcd: restore: --name is not in --initial-cluster")
)

// Restore is `etcdutl snapshot restore` (etcdutl/snapshot/v3_snapshot.go,
// Restore): it builds, on an empty disk, the data directory of member
// cfg.Name of a new cluster, as the member itself would have persisted
// it: a Raft snapshot at index len(members), term 1, whose voters are the
// new members and whose state machine holds the snapshot's keys; a
// HardState that commits it (term 1, vote for the first member by ID, as
// saveWALAndSnap writes); and the membership (member and cluster IDs,
// every peer). etcd writes one ConfChange entry per member at term 1 and
// a snapshot at their index; kubesim's Raft has no configuration entries,
// so the snapshot stands for them, with a log hash over their stand-ins.
//
// The store keeps the snapshot's revision, or BumpRevision more
// (modifyLatestRevision). The snapshot carries only the live keys,
// without the history etcd's db file keeps since its last compaction, so
// the store is compacted at the snapshot's revision (reads at it work,
// below it fail as compacted where etcd might serve them), and, with
// MarkCompacted, at the bumped revision, as etcd's scheduled compaction
// finishes when the member starts.
//
// Restore runs on the member's host h while it is down, writes its disk
// and traces etcdtrace.Restore there. The files become durable with the
// member's first fsync once it boots.
func Restore(h *sim.Host, snap *Snapshot, cfg RestoreConfig) (RestoreResult, error) {
	d := h.Disk()
	if (cfg.BumpRevision > 0) != cfg.MarkCompacted || cfg.BumpRevision < 0 {
		return RestoreResult{}, ErrRestoreFlags
	}
	if len(d.Files()) > 0 {
		return RestoreResult{}, ErrRestoreDataDirNotEmpty
	}
	if !cfg.SkipHashCheck && etcdtrace.StateHash(StateChanges(snap.KVs)) != snap.Hash {
		return RestoreResult{}, ErrRestoreHashMismatch
	}
	peers, self, err := restorePeers(cfg)
	if err != nil {
		return RestoreResult{}, err
	}
	rev := snap.Revision + cfg.BumpRevision
	kvs := snap.KVs
	if cfg.Ablations.Has(ablation.RestoreDropsKeysRange) {
		kvs = kvs[:len(kvs)/2] // the ablation: the keys after the middle one are lost
	}
	store, err := mvcc.NewFromKVs(kvs, rev, rev)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("etcd: restore: %w", err)
	}
	ids := make([]uint64, len(peers))
	for j, p := range peers {
		ids[j] = p.ID
	}
	slices.Sort(ids)
	res := RestoreResult{MemberID: self, ClusterID: ClusterID(peers), Peers: peers,
		Revision: rev, CompactRevision: rev, Index: uint64(len(ids)), Term: 1, Keys: len(snap.KVs)}
	state := (&member{store: store, dedup: map[string]uint64{}}).encodeState()
	rs := &raft.Snapshot{Index: res.Index, Term: res.Term, ConfState: raft.ConfState{Voters: ids}, Data: state, LogHash: bootstrapLogHash(ids)}
	d.Set(snapFile, encodeSnapshot(rs))
	d.Set(walFile, encodeHardState(raft.HardState{Term: res.Term, Vote: ids[0], Commit: res.Index}))
	d.Set(membershipFile, encodeMembership(res.MemberID, res.ClusterID, peers))
	st := SnapshotStatus(snap)
	h.Emit(&etcdtrace.Restore{Member: cfg.Name, MemberID: res.MemberID, ClusterID: res.ClusterID, FromCluster: snap.ClusterID,
		SnapshotRev: snap.Revision, Rev: res.Revision, CompactRev: res.CompactRevision, Keys: st.TotalKeys, Hash: st.Hash,
		KVs: StateChanges(snap.KVs)})
	return res, nil
}

// bootstrapLogHash is the Raft log hash (FNV-1a over each entry's index
// and term, 8 little-endian bytes each, then its data) of the entries a
// restore stands for: entry i adds voter ids[i-1], at term 1, its data the
// ID in 8 big-endian bytes. Every member of the new cluster computes the
// same, and it differs from the lost cluster's.
func bootstrapLogHash(ids []uint64) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i, id := range ids {
		var b []byte
		b = binary.LittleEndian.AppendUint64(b, uint64(i+1))
		b = binary.LittleEndian.AppendUint64(b, 1)
		b = binary.BigEndian.AppendUint64(b, id)
		for _, c := range b {
			h ^= uint64(c)
			h *= prime
		}
	}
	return h
}

// encodeMembership encodes the membership file's record.
func encodeMembership(self, cluster uint64, peers []Peer) []byte {
	b := []byte{recMembership}
	b = binary.AppendUvarint(b, self)
	b = binary.AppendUvarint(b, cluster)
	b = binary.AppendUvarint(b, uint64(len(peers)))
	for _, p := range peers {
		b = binary.AppendUvarint(b, p.ID)
		b = binary.AppendUvarint(b, uint64(p.Host))
		b = binary.AppendUvarint(b, uint64(len(p.Name)))
		b = append(b, p.Name...)
	}
	return seal(b)
}

// loadMembership reads the membership file, if the disk has a valid one:
// the member's ID and the cluster's peers.
func loadMembership(d *sim.Disk) (uint64, []Peer, bool) {
	recs := d.Records(membershipFile)
	if len(recs) != 1 {
		return 0, nil, false
	}
	kind, body, err := unseal(recs[0])
	if err != nil || kind != recMembership {
		return 0, nil, false
	}
	r := reader{b: body}
	self, _ := r.uvarint(), r.uvarint()
	n := r.uvarint()
	if r.err != nil || n > uint64(len(body)) {
		return 0, nil, false
	}
	peers := make([]Peer, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		p := Peer{ID: r.uvarint(), Host: sim.HostID(r.uvarint())}
		l := r.uvarint()
		if r.err != nil || l > uint64(len(r.b)) {
			return 0, nil, false
		}
		p.Name, r.b = string(r.b[:l]), r.b[l:]
		peers = append(peers, p)
	}
	if r.err != nil || !slices.ContainsFunc(peers, func(p Peer) bool { return p.ID == self }) {
		return 0, nil, false
	}
	return self, peers, true
}

// Bootstrap builds, on an empty disk, the data directory of member
// cfg.Name of a new, empty cluster (the member and cluster IDs and the
// peers; no snapshot, no log), as etcd does when it starts on an empty
// data directory with --initial-cluster-state new and the given
// --initial-cluster and --initial-cluster-token: its Raft log starts
// empty and its store at revision 1, with no compaction. It is what is
// left when there is no backup to restore, and traces etcdtrace.Restore
// with snapshot revision 0 and no keys: everything the lost cluster
// committed is gone. The bump and hash-check fields of cfg are ignored.
func Bootstrap(h *sim.Host, cfg RestoreConfig) (RestoreResult, error) {
	d := h.Disk()
	if len(d.Files()) > 0 {
		return RestoreResult{}, ErrRestoreDataDirNotEmpty
	}
	peers, self, err := restorePeers(cfg)
	if err != nil {
		return RestoreResult{}, err
	}
	res := RestoreResult{MemberID: self, ClusterID: ClusterID(peers), Peers: peers, Revision: 1, CompactRevision: -1}
	d.Set(membershipFile, encodeMembership(res.MemberID, res.ClusterID, peers))
	h.Emit(&etcdtrace.Restore{Member: cfg.Name, MemberID: res.MemberID, ClusterID: res.ClusterID,
		Rev: res.Revision, CompactRev: res.CompactRevision, Hash: etcdtrace.StateHash(nil)})
	return res, nil
}

// restorePeers returns the peers of cfg's initial cluster and the ID of the
// member cfg restores, or ErrRestoreNotMember when its name is not one of
// them, as etcdutl's restore checks --name against --initial-cluster.
func restorePeers(cfg RestoreConfig) ([]Peer, uint64, error) {
	peers, err := NewClusterPeers(cfg.InitialCluster, cfg.InitialClusterToken)
	if err != nil {
		return nil, 0, err
	}
	i := slices.IndexFunc(peers, func(p Peer) bool { return p.Name == cfg.Name })
	if i < 0 {
		return nil, 0, ErrRestoreNotMember
	}
	return peers, peers[i].ID, nil
}
