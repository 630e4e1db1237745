package etcd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TestServedTraced: a member with TraceServed traces every Range answer
// (what it returned, hashed, at which revision) and every watch response
// (its events), and one without traces nothing.
func TestServedTraced(t *testing.T) {
	cl := newCluster(t, 5, 3, func(c *Config) { c.TraceServed = c.ID == 1 }, sim.DiskSpec{})
	var ranges []etcdtrace.ServedRange
	var watches []etcdtrace.ServedWatch
	cl.w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *etcdtrace.ServedRange:
			ranges = append(ranges, *d)
		case *etcdtrace.ServedWatch:
			watches = append(watches, *d)
		}
	})
	cl.waitLeader(5 * time.Second)
	c := cl.addClient("c", 0) // member 0: etcd-1, which traces
	other := cl.addClient("o", 1)
	var first int64
	for i, kv := range [][2]string{{"a", "1"}, {"b", "2"}, {"a", "3"}} {
		r, err := cl.put(c, kv[0], kv[1])
		require.NoError(t, err)
		if i == 0 {
			first = r.Revision
		}
	}
	var got []WatchResponse
	cl.w.After(0, "test-watch", func() {
		(*c).Watch(WatchRequest{Key: "a", End: "c", StartRev: first}, func(r WatchResponse) { got = append(got, r) })
	})
	cl.await(5*time.Second, func() bool { return len(got) > 0 })
	all, err := cl.get(c, "a", GetOptions{End: "c"})
	require.NoError(t, err)
	past, err := cl.get(c, "a", GetOptions{End: "c", Rev: first, Limit: 1})
	require.NoError(t, err)
	_, err = cl.get(other, "a", GetOptions{End: "c"})
	require.NoError(t, err)

	require.Len(t, ranges, 2, "etcd-1's two reads, not etcd-2's")
	for i, r := range []GetResult{all, past} {
		require.Equal(t, "etcd-1", ranges[i].Member)
		require.Equal(t, len(r.KVs), ranges[i].Keys)
		require.Equal(t, etcdtrace.StateHash(StateChanges(r.KVs)), ranges[i].Hash)
		require.Equal(t, r.Revision, ranges[i].Rev)
	}
	require.Equal(t, int64(2), ranges[0].Count)
	require.Equal(t, first, ranges[1].At)
	require.Equal(t, int64(1), ranges[1].Limit)
	require.Equal(t, "c", ranges[1].End)

	require.NotEmpty(t, watches)
	require.Equal(t, AppendChanges(nil, got[0].Events, func(b []byte) string { return string(b) }), watches[0].Events)
	require.Len(t, watches[0].Events, 3, "the catch-up from the first write")
}

// TestRestoreDropsKeysRangeAblation: with restore-drops-keys-range the
// restored store holds only the first half of the snapshot's keys, while
// the restore still traces the snapshot it read.
func TestRestoreDropsKeysRangeAblation(t *testing.T) {
	cl, snap, _, c := lostCluster(t)
	var traced []etcdtrace.Restore
	cl.w.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*etcdtrace.Restore); ok {
			traced = append(traced, *d)
		}
	})
	var initial []InitialMember
	for _, h := range cl.members {
		initial = append(initial, InitialMember{Name: h.Name(), PeerURL: PeerURL(h.Name()), Host: h.ID()})
	}
	for _, h := range cl.members {
		_, err := Restore(h, snap, RestoreConfig{Name: h.Name(), InitialCluster: initial, InitialClusterToken: "restored",
			Ablations: ablation.Of(ablation.RestoreDropsKeysRange)})
		require.NoError(t, err)
	}
	cl.w.Inject(sim.Fault{Kind: sim.FaultRestart, Targets: [][]string{{"etcd-1", "etcd-2", "etcd-3"}}})
	cl.waitLeader(10 * time.Second)
	got, err := cl.get(c, "\x00", GetOptions{End: "\x00"})
	require.NoError(t, err)
	require.Equal(t, snap.KVs[:len(snap.KVs)/2], got.KVs)
	require.Len(t, traced, 3)
	require.Equal(t, len(snap.KVs), traced[0].Keys, "the restore reports the snapshot it read")
}
