package etcd

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// lostCluster runs a 3-member cluster, writes a few keys (one deleted
// again, two in one txn), saves a snapshot from member 0, writes one more
// key after it (the write a restore loses) and then wipes every member's
// disk for good. It returns the cluster, the snapshot, the revision of the
// lost write and a client.
func lostCluster(t *testing.T) (*cluster, *Snapshot, int64, **Client) {
	cl := newCluster(t, 11, 3, nil, sim.DiskSpec{})
	cl.waitLeader(5 * time.Second)
	c := cl.addClient("c")
	for _, kv := range [][2]string{{"a", "1"}, {"b", "1"}, {"a", "2"}, {"gone", "x"}} {
		_, err := cl.put(c, kv[0], kv[1])
		require.NoError(t, err)
	}
	done := false
	cl.w.After(0, "test-delete", func() {
		(*c).Delete("gone", func(_ DeleteResult, err error) { require.NoError(t, err); done = true })
	})
	cl.await(10*time.Second, func() bool { return done })
	done = false
	cl.w.After(0, "test-txn", func() {
		(*c).Txn(mvcc.TxnRequest{Success: []mvcc.Op{mvcc.OpPutOf([]byte("t1"), []byte("x"), mvcc.PutOptions{}),
			mvcc.OpPutOf([]byte("t2"), []byte("y"), mvcc.PutOptions{})}}, func(_ TxnResult, err error) {
			require.NoError(t, err)
			done = true
		})
	})
	cl.await(10*time.Second, func() bool { return done })
	var snap *Snapshot
	cl.w.After(0, "test-snapshot", func() {
		(*c).Snapshot(cl.members[0].ID(), func(s *Snapshot, err error) { require.NoError(t, err); snap = s })
	})
	cl.await(10*time.Second, func() bool { return snap != nil })
	lost, err := cl.put(c, "lost", "acknowledged")
	require.NoError(t, err)
	require.Greater(t, lost.Revision, snap.Revision)
	cl.w.Inject(sim.Fault{Kind: sim.FaultWipe, Targets: [][]string{{"etcd-1", "etcd-2", "etcd-3"}}})
	return cl, snap, lost.Revision, c
}

// restoreAll runs Restore for every member of cl onto its (wiped) disk and
// restarts them.
func restoreAll(t *testing.T, cl *cluster, snap *Snapshot, bump int64) []RestoreResult {
	var initial []InitialMember
	for _, h := range cl.members {
		initial = append(initial, InitialMember{Name: h.Name(), PeerURL: PeerURL(h.Name()), Host: h.ID()})
	}
	var out []RestoreResult
	for _, h := range cl.members {
		res, err := Restore(h, snap, RestoreConfig{Name: h.Name(), InitialCluster: initial,
			InitialClusterToken: "restored", BumpRevision: bump, MarkCompacted: bump > 0})
		require.NoError(t, err)
		out = append(out, res)
	}
	cl.w.Inject(sim.Fault{Kind: sim.FaultRestart, Targets: [][]string{{"etcd-1", "etcd-2", "etcd-3"}}})
	return out
}

// TestRestoreBuildsNewCluster: members booted on restored disks form a new
// cluster (new member IDs from the peer URLs and the token, a new cluster
// ID, etcdutl's Raft bootstrap at index 3, term 1) that serves exactly the
// snapshot's keys with their revisions and versions, hashes as the
// snapshot did, and has lost the write acknowledged after the snapshot.
func TestRestoreBuildsNewCluster(t *testing.T) {
	cl, snap, _, c := lostCluster(t)
	var traced []etcdtrace.Restore
	cl.w.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*etcdtrace.Restore); ok {
			traced = append(traced, *d)
		}
	})
	res := restoreAll(t, cl, snap, 0)
	peers := res[0].Peers
	require.Len(t, traced, 3)
	for i, d := range traced {
		require.Equal(t, etcdtrace.Restore{Member: cl.members[i].Name(), MemberID: res[i].MemberID, ClusterID: res[i].ClusterID,
			FromCluster: snap.ClusterID, SnapshotRev: snap.Revision, Rev: snap.Revision, CompactRev: snap.Revision,
			Keys: len(snap.KVs), Hash: snap.Hash, KVs: StateChanges(snap.KVs)}, d)
	}
	for i, r := range res {
		require.Equal(t, MemberID([]string{PeerURL(cl.members[i].Name())}, "restored"), r.MemberID)
		require.Equal(t, peers[i].ID, r.MemberID)
		require.Equal(t, ClusterID(peers), r.ClusterID)
		require.Equal(t, RestoreResult{MemberID: r.MemberID, ClusterID: r.ClusterID, Peers: peers,
			Revision: snap.Revision, CompactRevision: snap.Revision, Index: 3, Term: 1, Keys: len(snap.KVs)}, r)
	}
	require.NotEqual(t, snap.ClusterID, res[0].ClusterID)
	require.NotEqual(t, MemberID([]string{PeerURL("etcd-1")}, "other-token"), res[0].MemberID, "the token changes the IDs")

	cl.waitLeader(10 * time.Second)
	got, err := cl.get(c, "\x00", GetOptions{End: "\x00"})
	require.NoError(t, err)
	require.Equal(t, snap.KVs, got.KVs, "the restored keys, with their revisions and versions")
	require.Equal(t, snap.Revision, got.Revision)
	require.Contains(t, []uint64{peers[0].ID, peers[1].ID, peers[2].ID}, got.MemberID, "a new member answers")
	_, ok := value(mustGet(t, cl, c, "lost"))
	require.False(t, ok, "the write after the snapshot is gone")

	hs := cl.requireConverged(5 * time.Second)
	require.Len(t, hs, 3)
	var again *Snapshot
	cl.w.After(0, "test-snapshot", func() {
		(*c).Snapshot(cl.members[1].ID(), func(s *Snapshot, err error) { require.NoError(t, err); again = s })
	})
	cl.await(10*time.Second, func() bool { return again != nil })
	require.Equal(t, SnapshotStatus(snap), SnapshotStatus(again), "same revision, keys and hash")
	require.Equal(t, res[0].ClusterID, again.ClusterID)
	require.Equal(t, peers[1].ID, again.MemberID)
}

// mustGet reads key through c.
func mustGet(t *testing.T, cl *cluster, c **Client, key string) GetResult {
	r, err := cl.get(c, key, GetOptions{})
	require.NoError(t, err)
	return r
}

// TestRestoreRevisions: without --bump-revision the next write reuses the
// revision the lost write had (the hazard the flags exist for); with
// --bump-revision N --mark-compacted every later revision is above the
// snapshot's plus N, and reads and watches from any older revision fail as
// compacted, as etcdutl's modifyLatestRevision and the scheduled
// compaction make them.
func TestRestoreRevisions(t *testing.T) {
	tests := []struct {
		name string
		bump int64
	}{{"no bump", 0}, {"bump 1000", 1000}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, snap, lostRev, c := lostCluster(t)
			restoreAll(t, cl, snap, tt.bump)
			cl.waitLeader(10 * time.Second)
			put, err := cl.put(c, "new", "v")
			require.NoError(t, err)
			require.Equal(t, snap.Revision+tt.bump+1, put.Revision)
			if tt.bump == 0 {
				require.Equal(t, lostRev, put.Revision, "a revision the lost cluster acknowledged is handed out again")
			} else {
				require.Greater(t, put.Revision, lostRev)
			}
			compact := snap.Revision + tt.bump
			_, err = cl.get(c, "a", GetOptions{Rev: compact - 1})
			require.ErrorIs(t, err, mvcc.ErrCompacted, "below the compaction")
			r, err := cl.get(c, "a", GetOptions{Rev: compact})
			require.NoError(t, err)
			require.Equal(t, "2", string(r.KVs[0].Value), "at the compact revision the restored state reads")

			var resps []WatchResponse
			cl.w.After(0, "test-watch", func() {
				(*c).Watch(WatchRequest{Key: "a", StartRev: compact - 1}, func(r WatchResponse) { resps = append(resps, r) })
			})
			cl.await(10*time.Second, func() bool { return len(resps) > 0 })
			require.True(t, resps[0].Canceled, "a watch from below the compact revision is canceled")
			require.Equal(t, compact, resps[0].CompactRevision)
		})
	}
}

// TestRestoreRefuses: Restore refuses what etcdutl refuses: a data
// directory that is not empty, a snapshot whose content does not match
// its hash (unless --skip-hash-check), --mark-compacted without a bump or
// a bump without it, and a --name missing from --initial-cluster.
func TestRestoreRefuses(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "etcd-1", Boot: func(*sim.Host) {}})
	kvs := []mvcc.KeyValue{{Key: []byte("a"), Value: []byte("1"), CreateRevision: 2, ModRevision: 2, Version: 1}}
	good := &Snapshot{Revision: 2, KVs: kvs, Hash: etcdtrace.StateHash(StateChanges(kvs))}
	initial := []InitialMember{{Name: "etcd-1", PeerURL: PeerURL("etcd-1"), Host: h.ID()}}
	cfg := RestoreConfig{Name: "etcd-1", InitialCluster: initial, InitialClusterToken: "t"}
	bad := *good
	bad.Hash++
	tests := []struct {
		name string
		snap *Snapshot
		mod  func(*RestoreConfig)
		want error
	}{
		{"hash mismatch", &bad, nil, ErrRestoreHashMismatch},
		{"mark without bump", good, func(c *RestoreConfig) { c.MarkCompacted = true }, ErrRestoreFlags},
		{"bump without mark", good, func(c *RestoreConfig) { c.BumpRevision = 5 }, ErrRestoreFlags},
		{"not a member", good, func(c *RestoreConfig) { c.Name = "etcd-9" }, ErrRestoreNotMember},
	}
	for _, tt := range tests {
		c := cfg
		if tt.mod != nil {
			tt.mod(&c)
		}
		_, err := Restore(h, tt.snap, c)
		require.True(t, errors.Is(err, tt.want), "%s: %v", tt.name, err)
		require.Empty(t, h.Disk().Files(), tt.name)
	}
	c := cfg
	c.SkipHashCheck = true
	_, err := Restore(h, &bad, c)
	require.NoError(t, err, "--skip-hash-check")
	_, err = Restore(h, good, cfg)
	require.ErrorIs(t, err, ErrRestoreDataDirNotEmpty)
}

// TestNewClusterPeersRefusesDuplicates: two members with one peer URL
// would get one ID; etcd refuses that cluster.
func TestNewClusterPeersRefusesDuplicates(t *testing.T) {
	_, err := NewClusterPeers([]InitialMember{{Name: "a", PeerURL: PeerURL("x")}, {Name: "b", PeerURL: PeerURL("x")}}, "t")
	require.Error(t, err)
}

// TestBootstrapEmptyCluster: without a backup, members booted on
// bootstrapped data directories form a new, empty cluster at revision 1
// (new IDs), which serves writes from revision 2 on.
func TestBootstrapEmptyCluster(t *testing.T) {
	cl, _, _, c := lostCluster(t)
	var initial []InitialMember
	for _, h := range cl.members {
		initial = append(initial, InitialMember{Name: h.Name(), PeerURL: PeerURL(h.Name()), Host: h.ID()})
	}
	for _, h := range cl.members {
		res, err := Bootstrap(h, RestoreConfig{Name: h.Name(), InitialCluster: initial, InitialClusterToken: "empty"})
		require.NoError(t, err)
		require.Equal(t, MemberID([]string{PeerURL(h.Name())}, "empty"), res.MemberID)
		_, err = Bootstrap(h, RestoreConfig{Name: h.Name(), InitialCluster: initial, InitialClusterToken: "empty"})
		require.ErrorIs(t, err, ErrRestoreDataDirNotEmpty)
	}
	cl.w.Inject(sim.Fault{Kind: sim.FaultRestart, Targets: [][]string{{"etcd-1", "etcd-2", "etcd-3"}}})
	cl.waitLeader(10 * time.Second)
	got, err := cl.get(c, "\x00", GetOptions{End: "\x00"})
	require.NoError(t, err)
	require.Empty(t, got.KVs, "everything is forgotten")
	require.Equal(t, int64(1), got.Revision)
	put, err := cl.put(c, "a", "new")
	require.NoError(t, err)
	require.Equal(t, int64(2), put.Revision)
}
