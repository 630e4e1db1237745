package backup

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TestJobSavesAndStoreKeeps: the job saves a snapshot every interval and
// the store keeps each one across its own crash; what it lists and
// returns has the status it traced, and each traced save has its stored
// twin.
func TestJobSavesAndStoreKeeps(t *testing.T) {
	w := sim.NewWorld(1)
	var peers []etcd.Peer
	for i := 1; i <= 3; i++ {
		peers = append(peers, etcd.Peer{ID: uint64(i), Host: sim.HostID(i - 1), Name: fmt.Sprintf("etcd-%d", i)})
	}
	var members []sim.HostID
	for _, p := range peers {
		w.MustAddHost(sim.HostSpec{Name: p.Name, Role: "etcd", Boot: etcd.Boot(etcd.Config{ID: p.ID, Peers: peers})})
		members = append(members, p.Host)
	}
	st := w.MustAddHost(sim.HostSpec{Name: "backup-store", Role: "store", Boot: BootStore()})
	w.MustAddHost(sim.HostSpec{Name: "backup-job", Role: "operator", Boot: BootJob(JobConfig{Members: members, Store: st.ID(), Interval: 10 * time.Second})})
	var writer *etcd.Client
	w.MustAddHost(sim.HostSpec{Name: "writer", Role: "client", Boot: func(h *sim.Host) {
		writer = etcd.NewClient(h, etcd.ClientConfig{Endpoints: members})
		n := 0
		var tick *sim.Timer
		tick = h.NewTimer("write", func() {
			n++
			writer.Put(fmt.Sprintf("k%d", n%7), fmt.Sprintf("v%d", n), func(etcd.PutResult, error) {})
			tick.Reset(time.Second)
		})
		tick.Reset(time.Second)
	}})
	var reader *StoreClient
	w.MustAddHost(sim.HostSpec{Name: "reader", Role: "client", Boot: func(h *sim.Host) {
		reader = NewStoreClient(h, st.ID(), "reply", 5*time.Second)
	}})
	var saves []etcdtrace.SnapshotSave
	var stored []etcdtrace.BackupStored
	w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *etcdtrace.SnapshotSave:
			saves = append(saves, *d)
		case *etcdtrace.BackupStored:
			stored = append(stored, *d)
		}
	})
	w.Run(sim.Time(45 * time.Second))
	require.Len(t, saves, 4)
	require.Len(t, stored, 4)
	for i := range saves {
		require.Equal(t, saves[i].Rev, stored[i].Rev)
		require.Equal(t, saves[i].Keys, stored[i].Keys)
		require.Equal(t, saves[i].Hash, stored[i].Hash)
		require.Greater(t, saves[i].Keys, 0)
	}

	st.Crash()
	w.After(time.Second, "restart-store", st.Restart)
	var names []string
	var got *etcd.Snapshot
	w.After(2*time.Second, "read", func() {
		reader.List(func(ns []string, err error) {
			require.NoError(t, err)
			names = ns
			reader.Get(stored[len(stored)-1].Name, func(s *etcd.Snapshot, err error) {
				require.NoError(t, err)
				got = s
			})
		})
	})
	w.Run(w.Now().Add(5 * time.Second))
	require.Len(t, names, 4)
	require.NotNil(t, got)
	last := stored[len(stored)-1]
	require.Equal(t, etcd.SnapshotStatusResult{Revision: last.Rev, TotalKeys: last.Keys, Hash: last.Hash}, etcd.SnapshotStatus(got))
	require.Equal(t, got.Hash, last.Hash)
}
