package etcd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// snapshotDuringWrite asks member 0 for a snapshot and, 1 ms later, puts
// k=new through another client, so that the write is applied while the
// snapshot streams. It returns the snapshot, the put's revision and the
// SnapshotSave events traced.
func snapshotDuringWrite(t *testing.T, abl ablation.Set) (*Snapshot, int64, []etcdtrace.SnapshotSave) {
	cl := newCluster(t, 7, 3, func(c *Config) { c.Ablations = abl }, sim.DiskSpec{})
	var saves []etcdtrace.SnapshotSave
	cl.w.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*etcdtrace.SnapshotSave); ok {
			saves = append(saves, *d)
		}
	})
	cl.waitLeader(5 * time.Second)
	c := cl.addClient("c")
	op := cl.addClient("operator")
	_, err := cl.put(c, "a", "1")
	require.NoError(t, err)
	_, err = cl.put(c, "k", "old")
	require.NoError(t, err)

	var snap *Snapshot
	var putRev int64
	done := 0
	cl.w.After(0, "test-snapshot", func() {
		(*op).Snapshot(cl.members[0].ID(), func(s *Snapshot, e error) {
			require.NoError(t, e)
			snap = s
			done++
		})
	})
	cl.w.After(time.Millisecond, "test-put", func() {
		(*c).Put("k", "new", func(r PutResult, e error) {
			require.NoError(t, e)
			putRev = r.Revision
			done++
		})
	})
	cl.await(30*time.Second, func() bool { return done == 2 })
	return snap, putRev, saves
}

// TestSnapshotIsPointInTime: a snapshot holds the store as it was when
// the member took it (one read transaction, as etcd's backend.Snapshot):
// a write applied while it streams is not in it, its status agrees with
// the member's hash, and it names the member and the cluster.
func TestSnapshotIsPointInTime(t *testing.T) {
	snap, putRev, saves := snapshotDuringWrite(t, ablation.Of())
	require.Less(t, snap.Revision, putRev, "the put landed after the snapshot's revision")
	require.Len(t, snap.KVs, 2)
	require.Equal(t, "k", string(snap.KVs[1].Key))
	require.Equal(t, "old", string(snap.KVs[1].Value))
	require.Equal(t, snap.Revision, snap.KVs[1].ModRevision)
	st := SnapshotStatus(snap)
	require.Equal(t, SnapshotStatusResult{Revision: snap.Revision, TotalKeys: 2, Hash: snap.Hash}, st)
	require.Equal(t, "etcd-1", snap.Member)
	require.Equal(t, uint64(1), snap.MemberID)
	require.Equal(t, ClusterID([]Peer{{ID: 1}, {ID: 2}, {ID: 3}}), snap.ClusterID)
	require.Equal(t, []etcdtrace.SnapshotSave{{Member: "etcd-1", MemberID: 1, ClusterID: snap.ClusterID, Rev: snap.Revision, Keys: 2, Hash: snap.Hash}}, saves)
}

// TestSnapshotNotPointInTimeAblation: with the ablation the snapshot
// carries the write applied while it streamed, under the older revision.
func TestSnapshotNotPointInTimeAblation(t *testing.T) {
	snap, putRev, saves := snapshotDuringWrite(t, ablation.Of(ablation.SnapshotNotPointInTime))
	require.Less(t, snap.Revision, putRev)
	require.Equal(t, "new", string(snap.KVs[1].Value), "the copy saw the later write")
	require.Equal(t, putRev, snap.KVs[1].ModRevision)
	require.Len(t, saves, 1)
	require.Equal(t, snap.Revision, saves[0].Rev)
}

// TestSnapshotStatus: status counts the keys and hashes the content
// itself, so a value changed after the member hashed it shows.
func TestSnapshotStatus(t *testing.T) {
	kvs := []mvcc.KeyValue{
		{Key: []byte("a"), Value: []byte("1"), CreateRevision: 2, ModRevision: 2, Version: 1},
		{Key: []byte("b"), Value: []byte("2"), CreateRevision: 3, ModRevision: 5, Version: 2},
	}
	good := &Snapshot{Revision: 6, KVs: kvs, Hash: etcdtrace.StateHash(StateChanges(kvs))}
	tampered := &Snapshot{Revision: 6, KVs: []mvcc.KeyValue{kvs[0], kvs[1]}, Hash: good.Hash}
	tampered.KVs[1].Value = []byte("x")
	for _, tc := range []struct {
		name     string
		snap     *Snapshot
		keys     int
		sameHash bool
	}{
		{"empty", &Snapshot{Revision: 1}, 0, false},
		{"two keys", good, 2, true},
		{"tampered value", tampered, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := SnapshotStatus(tc.snap)
			require.Equal(t, tc.snap.Revision, st.Revision)
			require.Equal(t, tc.keys, st.TotalKeys)
			require.Equal(t, tc.sameHash, st.Hash == good.Hash)
		})
	}
}

// TestClusterID: the cluster ID depends on the set of member IDs only.
func TestClusterID(t *testing.T) {
	a := ClusterID([]Peer{{ID: 1}, {ID: 2}, {ID: 3}})
	require.Equal(t, a, ClusterID([]Peer{{ID: 3}, {ID: 1}, {ID: 2}}))
	require.NotEqual(t, a, ClusterID([]Peer{{ID: 1}, {ID: 2}, {ID: 4}}))
}
