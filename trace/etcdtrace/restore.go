package etcdtrace

// Restore is emitted when `etcdutl snapshot restore` has built a member's
// data directory for a new cluster from a snapshot (etcd.Restore), on the
// member's host: the new member and cluster IDs, the cluster the snapshot
// came from, the snapshot's revision, the restored store's revision and
// compact revision (above the snapshot's with --bump-revision and
// --mark-compacted), and the restored keys (KVs, as puts; in the JSON
// trace only) with their count and StateHash. A check that follows one
// Raft group or one committed history starts a new one for ClusterID.
//
//trace:kind KindRestore etcd.restore notrim
type Restore struct {
	Member      string   `json:"member" trace:"member"`
	MemberID    uint64   `json:"member_id" trace:"id,hex"`
	ClusterID   uint64   `json:"cluster_id" trace:"cluster,hex"`
	FromCluster uint64   `json:"from_cluster" trace:"from,hex"`
	SnapshotRev int64    `json:"snapshot_rev" trace:"snaprev"`
	Rev         int64    `json:"rev" trace:"rev"`
	CompactRev  int64    `json:"compact_rev" trace:"compact"`
	Keys        int      `json:"keys" trace:"keys"`
	Hash        uint64   `json:"hash" trace:"hash,hex"`
	KVs         []Change `json:"kvs,omitempty" trace:"-"`
}

// RecoveryStep is emitted by an operator carrying out a procedure, once
// per step as it completes (or fails): Step names it (disaster recovery:
// "fetch-backup", "restore", "start-etcd", "converged", ...; the API
// servers' roll in a membership change: "set-etcd-servers",
// "apiserver-ready"), Detail says what it did, and Err is set when it
// failed.
//
//trace:kind KindRecoveryStep operator.step notrim
type RecoveryStep struct {
	Operator string `json:"operator" trace:"operator"`
	Step     string `json:"step" trace:"step"`
	Detail   string `json:"detail,omitempty" trace:"detail,omitempty"`
	Err      string `json:"err,omitempty" trace:"err,omitempty"`
}
